package main

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpdir/mcpdir"
)

// terminalSafe escapes what a terminal would act on rather than show:
// control characters (ESC sequences can rewrite the screen, set the window
// title or the clipboard), bidirectional overrides (which reorder what is
// shown), invisible characters (zero-width, Unicode tags: text a model
// reads and a person does not see) and invalid UTF-8. Directory data comes
// from anywhere.
func terminalSafe(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeRune(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || mcpdir.Hidden(r) || r == unicode.ReplacementChar // Hidden holds the bidi controls
}
