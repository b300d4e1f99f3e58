package wire

import (
	"encoding/json"
	"testing"
)

// AppendJSONString writes what encoding/json writes, for any string, with
// HTML escaping (json.Marshal) and without (MarshalPlain). The slog style
// is checked against log/slog in cmd/mcpdir's TestPlainLinesAsSlogWritesThem.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `q"uo\te`, "\x00\x1f\n\r\t\b\f", "é ü 日本", "\xff\xfe", "\u2028\u2029", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := MarshalPlain(s)
		if got := AppendJSONString(nil, s, AsMarshalPlain); string(got) != string(want) {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got, want)
		}
		want, _ = json.Marshal(s)
		if got := AppendJSONString(nil, s, AsMarshal); string(got) != string(want) {
			t.Fatalf("AppendJSONString(%q, html) = %s, want %s", s, got, want)
		}
	})
}
