package mcpdir

import (
	"strings"
	"unicode"
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

// cleanText makes text from outside safe to store and show: valid UTF-8,
// control characters as spaces, runs of space folded, at most n bytes (cut
// at a rune boundary).
func cleanText(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
