package main

import (
	"strings"
	"testing"
	"unicode"

	"github.com/mcpdir/mcpdir"
)

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"postgres":             "postgres",
		"café ünïcode 日本":      "café ünïcode 日本",
		"\x1b]0;pwned\x07":     `\x1b]0;pwned\a`,
		"a\x1b[2Jb":            `a\x1b[2Jb`,
		"line\nbreak\ttab\r":   `line\nbreak\ttab\r`,
		"rtl\u202egnp.exe":     `rtl\u202egnp.exe`,
		"bad\xffbyte":          `bad\ufffdbyte`,
		"nul\x00":              `nul\x00`,
		"c1\u009bcontrol":      `c1\u009bcontrol`,
		"isolate\u2066x\u2069": `isolate\u2066x\u2069`,
		"zero\u200bwidth":      `zero\u200bwidth`, // a model reads it, a person would not see it
		"tag\U000E0041s":       `tag\U000e0041s`,  // Unicode tags spell hidden ASCII
	} {
		if got := terminalSafe(in); got != want {
			t.Errorf("terminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// Whatever the data, what reaches the terminal has no control character.
func FuzzTerminalSafe(f *testing.F) {
	for _, s := range []string{"x", "\x1b[31m", "\u202e", "\xff", "a\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := terminalSafe(s)
		if strings.ContainsFunc(out, func(r rune) bool {
			return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || mcpdir.Hidden(r)
		}) {
			t.Fatalf("terminalSafe(%q) = %q", s, out)
		}
	})
}
