package mcpdir

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ToolWarning is a finding in what a server tells the model about its
// tools (a tool's name, title, description or parameter descriptions, or
// the server's instructions): text that may be aimed at the model rather
// than at describing the tool. Warnings are computed from the definitions
// (package toolscan) whenever an entry is indexed, never stored.
type ToolWarning struct {
	Kind     string `json:"kind"`     // one of the Warn… kinds
	Severity string `json:"severity"` // SeverityHigh, SeverityMedium or SeverityLow
	// Tool is the tool whose text tripped it; empty for the server's
	// instructions.
	Tool string `json:"tool,omitempty"`
	// Field is where: "name", "title", "description", "instructions", or
	// the JSON path of any text of the definition: a parameter's
	// "input_schema.properties.<name>.description", its name
	// "input_schema.properties.<name>", "input_schema.$defs.x.description",
	// "input_schema.properties.<name>.enum.8", "output_schema.…",
	// "annotations.title"; a key read as a name whose value is text too
	// ends in "#key" ("input_schema.x-hint#key").
	Field string `json:"field"`
	// Start and End are the matched span's byte offsets in the field's
	// text as written; Match is that span, invisible characters shown as
	// escapes. A match found in the text folded (look-alike letters,
	// accents, leet) or decoded (base64, hex, ROT13) points at the text
	// as written, and the Note says what it read there.
	Start int    `json:"start"`
	End   int    `json:"end"`
	Match string `json:"match"`
	// Note says in words what the span does.
	Note string `json:"note"`
}

// Words is the warning's kind as people read it.
func (w ToolWarning) Words() string {
	switch w.Kind {
	case WarnHiddenInstruction:
		return "Hidden instruction"
	case WarnCredentialAccess:
		return "Asks for credentials or local files"
	case WarnToolShadowing:
		return "Instructions about other tools"
	case WarnInvisibleCharacters:
		return "Invisible characters"
	case WarnOverlongDescription:
		return "Overlong description"
	}
	return w.Kind
}

// The kinds of ToolWarning.
const (
	WarnHiddenInstruction   = "hidden_instruction"   // tags or phrases addressed to the model over the user's head
	WarnCredentialAccess    = "credential_access"    // asks to read or send keys, tokens, local files
	WarnToolShadowing       = "tool_shadowing"       // tells the model how to use other servers' tools
	WarnInvisibleCharacters = "invisible_characters" // zero-width, tag or direction-changing characters
	WarnOverlongDescription = "overlong_description" // far longer than its tool needs
)

// Severities of a ToolWarning.
const (
	SeverityHigh   = "high"
	SeverityMedium = "medium"
	SeverityLow    = "low"
)

// WarningsFilterNone is the value of the search filter "warnings" that
// keeps only servers whose tools raised no warning.
const WarningsFilterNone = "none"

// Hidden reports whether r is a character that changes what text means to
// a model or its direction without showing: zero-width and other invisible
// format characters, Unicode tag characters, bidirectional controls.
func Hidden(r rune) bool {
	switch {
	case r == '\u00AD', r == '\u034F', r == '\u061C', r == '\u115F', r == '\u1160', r == '\u17B4', r == '\u17B5',
		r == '\u180E', r == '\u3164', r == '\uFEFF', r == '\uFFA0':
		return true
	case r >= '\u200B' && r <= '\u200F', r >= '\u202A' && r <= '\u202E', r >= '\u2060' && r <= '\u206F':
		return true
	case r >= 0xE0000 && r <= 0xE007F, r >= 0xE0100 && r <= 0xE01EF: // tags; supplementary variation selectors
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Visible is s as pages and terminals should show it: every Hidden
// character written as a visible escape (\u{200B}), so that what a model
// reads and what a person sees are the same text.
func Visible(s string) string {
	spans := HiddenSpans(s)
	if spans == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		for _, r := range s[sp[0]:sp[1]] {
			fmt.Fprintf(&b, `\u{%X}`, r)
		}
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// HiddenSpans are the byte spans [start, end) of s's runs of Hidden
// characters. A zero-width joiner between two emoji is not one: it only
// joins pictures.
func HiddenSpans(s string) [][2]int {
	var spans [][2]int
	var prev rune
	for i, r := range s {
		if !Hidden(r) {
			prev = r
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u200D' && isPictograph(prev) {
			if next, _ := utf8.DecodeRuneInString(s[i+size:]); isPictograph(next) {
				prev = r
				continue
			}
		}
		if n := len(spans); n > 0 && spans[n-1][1] == i {
			spans[n-1][1] = i + size
		} else {
			spans = append(spans, [2]int{i, i + size})
		}
		prev = r
	}
	return spans
}

// isPictograph reports whether r is an emoji picture (or the variation
// selector that makes one), between which a zero-width joiner is ordinary.
func isPictograph(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r == '\uFE0F'
}
