package mcpdir

import (
	"testing"
	"time"
)

func TestLatestVersion(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v := func(version, status string, minutes int) *ServerVersion {
		return &ServerVersion{Version: version, Status: status, PublishedAt: at.Add(time.Duration(minutes) * time.Minute)}
	}
	for _, tc := range []struct {
		name string
		vs   []*ServerVersion
		want string
	}{
		{"semver beats publication order", []*ServerVersion{v("2.0.0", StatusActive, 0), v("1.9.9", StatusActive, 5)}, "2.0.0"},
		{"numeric, not text, order", []*ServerVersion{v("1.10.0", StatusActive, 0), v("1.9.0", StatusActive, 1)}, "1.10.0"},
		{"a release beats its pre-release", []*ServerVersion{v("1.0.0-rc.1", StatusActive, 5), v("1.0.0", StatusActive, 0)}, "1.0.0"},
		{"pre-releases by their identifiers", []*ServerVersion{v("1.0.0-rc.2", StatusActive, 0), v("1.0.0-rc.10", StatusActive, 0), v("1.0.0-alpha", StatusActive, 9)}, "1.0.0-rc.10"},
		{"build metadata is ignored, then time decides", []*ServerVersion{v("1.0.0+b1", StatusActive, 0), v("1.0.0+b2", StatusActive, 1)}, "1.0.0+b2"},
		{"not semver: the later published", []*ServerVersion{v("2024.10", StatusActive, 1), v("2025.01", StatusActive, 0)}, "2024.10"},
		{"deprecated still counts", []*ServerVersion{v("1.0.0", StatusActive, 0), v("1.1.0", StatusDeprecated, 1)}, "1.1.0"},
		{"a deleted version is not the latest", []*ServerVersion{v("1.0.0", StatusActive, 0), v("2.0.0", StatusDeleted, 1)}, "1.0.0"},
		{"all deleted: the newest", []*ServerVersion{v("1.0.0", StatusDeleted, 0), v("2.0.0", StatusDeleted, 1)}, "2.0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if i := LatestVersion(tc.vs); i < 0 || tc.vs[i].Version != tc.want {
				t.Fatalf("latest is %d, want %s", i, tc.want)
			}
			// The order does not depend on the input's.
			rev := []*ServerVersion{}
			for i := len(tc.vs) - 1; i >= 0; i-- {
				rev = append(rev, tc.vs[i])
			}
			if i := LatestVersion(rev); rev[i].Version != tc.want {
				t.Fatalf("reversed: latest is %s, want %s", rev[i].Version, tc.want)
			}
		})
	}
	if LatestVersion(nil) != -1 {
		t.Fatal("no versions, yet a latest")
	}
}
