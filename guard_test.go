package mcpdir

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestValidateKeywords(t *testing.T) {
	for _, c := range []struct{ in, want, code string }{
		{"postgres", "postgres", ""},
		{"  postgres  ", "postgres", ""},
		{"github   issues", "github issues", ""},
		{"", "", ECodeMissingKeywords},
		{"   ", "", ECodeMissingKeywords},
		{"\t", "", ECodeInvalidKeywords},
		{"a\x00b", "", ECodeInvalidKeywords},
		{"a\x1bb", "", ECodeInvalidKeywords},
		{"a\x7fb", "", ECodeInvalidKeywords},
		{"a\u0085b", "", ECodeInvalidKeywords},
		{"\xc3", "", ECodeInvalidKeywords},
		{"café ünïcode", "café ünïcode", ""},
		{strings.Repeat("a", 1024), strings.Repeat("a", 1024), ""},
		{strings.Repeat("a", 1025), "", ECodeInvalidKeywords},
	} {
		got, err := ValidateKeywords(c.in)
		if c.code == "" && (err != nil || got != c.want) || c.code != "" && ErrorCode(err) != c.code {
			t.Errorf("ValidateKeywords(%.20q) = %q, %v; want %q, code %q", c.in, got, err, c.want, c.code)
		}
	}
}

// Whatever comes in, what is accepted is clean: valid UTF-8, no control
// characters, bounded, trimmed, never blank.
func FuzzValidateKeywords(f *testing.F) {
	for _, s := range []string{"postgres", " a  b ", "\x00", "\x1b[31m", "\xff", strings.Repeat("é", 200), "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ValidateKeywords(in)
		if err != nil {
			if c := ErrorCode(err); c != ECodeInvalidKeywords && c != ECodeMissingKeywords {
				t.Fatalf("code %q", c)
			}
			return
		}
		if got == "" || len(got) > MaxKeywordsBytes || !utf8.ValidString(got) ||
			strings.IndexFunc(got, unicode.IsControl) >= 0 || strings.TrimSpace(got) != got {
			t.Fatalf("ValidateKeywords(%q) accepted %q", in, got)
		}
	})
}

func TestParseFilter(t *testing.T) {
	f, err := ParseFilter(map[string][]string{"transport": {"sse"}, "registry": {"npm"}, "official": {"false"}, "tag": {"db", "sql"}, "live": {"up"}})
	if err != nil || f.Transport != "sse" || f.Registry != "npm" || f.Official == nil || *f.Official || len(f.Tags) != 2 || f.Live != LiveUp {
		t.Fatalf("%+v %v", f, err)
	}
	if f, err := ParseFilter(nil); err != nil || !f.IsZero() {
		t.Fatalf("no parameters: %+v %v", f, err)
	}
	for _, bad := range []map[string][]string{
		{"transport": {"pigeon"}}, {"transport": {"sse", "stdio"}}, {"official": {"yes"}},
		{"registry": {strings.Repeat("x", 65)}}, {"registry": {"a\x00"}}, {"tag": {""}},
		{"tag": strings.Split("a,b,c,d,e,f,g,h,i,j,k", ",")},
		{"live": {"down"}}, {"live": {"UP"}}, {"live": {"up", "up"}},
	} {
		if _, err := ParseFilter(bad); ErrorCode(err) != ECodeInvalidRequest {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
