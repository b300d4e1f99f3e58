package mcpdir

import (
	"errors"
	"testing"
)

func TestValidVersion(t *testing.T) {
	for _, ok := range []string{"1.0.0", "v1.0.0", "1.0.0-rc.1", "1.0.0+build.5", "2024.01.15", "1.0", "snapshot-7", "1.0.0-x.1", "v2", "1.2.3-beta_1"} {
		if err := ValidVersion(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "latest", "LATEST", "Latest", "latest ", " ", "\n", "1.0.0\n", "1.0.0 ", "\t1",
		"^1.2.3", "~1", "~1.2.3", ">=1", "<2", "=1.0.0", "1.x", "1.X", "1.2.*", "*", "x", "1 - 2", "1||2", "1 || 2",
		"$(id)", "`id`", "1;rm", "1|2", "1&2", "1(2)", "'1'", `"1"`, `1\2`, "1?", "{1}", "[1]", "1!", "1#2", "..", ".",
		"1/2", "1%2f", "1.0.0\u200b", "1.0.0\x00", "1.0.0\u202e"} {
		err := ValidVersion(bad)
		if _, ok := errors.AsType[*RecordError](err); !ok {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestCanonicalVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.0.0": "1.0.0", "v1.0.0": "1.0.0", "V1.0.0": "1.0.0", "01.0.0": "1.0.0", "1.00.000": "1.0.0",
		"1.0.0+x": "1.0.0", "v01.02.03+build.7": "1.2.3", "1.0.0-rc.01": "1.0.0-rc.1", "1.0.0-RC1": "1.0.0-RC1",
		"2024.01.15": "2024.1.15", "version": "version", "v": "v", "1.0": "1.0",
	} {
		if got := CanonicalVersion(in); got != want {
			t.Errorf("CanonicalVersion(%q) = %q, want %q", in, got, want)
		}
	}
	if CanonicalVersion("1.0.0-rc1") == CanonicalVersion("1.0.0") || CanonicalVersion("1.0") == CanonicalVersion("1.0.0") {
		t.Error("different releases collide")
	}
}
