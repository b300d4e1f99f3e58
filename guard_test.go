package mcpdir

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestValidateKeywords(t *testing.T) {
	task := strings.Repeat("word ", 300) // 1,500 bytes: a pasted task
	long := strings.Repeat("abcdefghi ", 500)
	for _, c := range []struct{ in, want, code string }{
		{"postgres", "postgres", ""},
		{"  postgres  ", "postgres", ""},
		{"github   issues", "github issues", ""},
		{"", "", ECodeMissingKeywords},
		{"   ", "", ECodeMissingKeywords},
		{"\t", "", ECodeMissingKeywords},
		{"\r\n\n", "", ECodeMissingKeywords},
		// Line breaks and tabs of a pasted task are spaces.
		{"Find my PRs.\r\nThen\tlist\vthem\fplease\u0085now\u2028ok", "Find my PRs. Then list them please now ok", ""},
		{"a\x00b", "", ECodeInvalidKeywords},
		{"a\x1bb", "", ECodeInvalidKeywords},
		{"a\x7fb", "", ECodeInvalidKeywords},
		{"\xc3", "", ECodeInvalidKeywords},
		{"café ünïcode", "café ünïcode", ""},
		{task, strings.TrimSpace(task), ""},
		// What is past SearchedKeywordsBytes is cut between words.
		{long, long[:SearchedKeywordsBytes/10*10-1], ""},
		{strings.Repeat("a", SearchedKeywordsBytes+5), strings.Repeat("a", SearchedKeywordsBytes), ""},
		{strings.Repeat("é", SearchedKeywordsBytes), strings.Repeat("é", SearchedKeywordsBytes/2), ""},
		{strings.Repeat("a", MaxKeywordsBytes), strings.Repeat("a", SearchedKeywordsBytes), ""},
		{strings.Repeat("a", MaxKeywordsBytes+1), "", ECodeInvalidKeywords},
	} {
		got, err := ValidateKeywords(c.in)
		if c.code == "" && (err != nil || got != c.want) || c.code != "" && ErrorCode(err) != c.code {
			t.Errorf("ValidateKeywords(%.20q) = %.30q, %v; want %.30q, code %q", c.in, got, err, c.want, c.code)
		}
	}
}

// Whatever comes in, what is accepted is clean: valid UTF-8, no control
// characters, bounded by what is searched, trimmed, never blank, and the
// words of what came in, in order.
func FuzzValidateKeywords(f *testing.F) {
	for _, s := range []string{"postgres", " a  b ", "\x00", "\x1b[31m", "\xff", strings.Repeat("é", 200), "\u2028", "a\r\nb\tc", strings.Repeat("ab ", 700)} {
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
		if got == "" || len(got) > SearchedKeywordsBytes || !utf8.ValidString(got) ||
			strings.IndexFunc(got, unicode.IsControl) >= 0 || strings.TrimSpace(got) != got ||
			!strings.HasPrefix(strings.Join(strings.Fields(in), " "), got) {
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
