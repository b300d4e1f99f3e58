package mcpdir

import (
	"strings"
	"unicode/utf8"
)

// TruncateWords cuts s to at most n bytes, at a word boundary when one is
// near, and marks the cut with an ellipsis: how a description becomes a
// brief.
func TruncateWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > n/2 {
		cut = i
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
