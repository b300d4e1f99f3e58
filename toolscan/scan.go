// Package toolscan reads what servers tell models about their tools — each
// tool's name, title and description, every string anywhere in its input
// and output schemas and annotations, and the server's instructions, as
// written, folded (look-alike letters, accents, invisible characters,
// leet) and decoded (base64, hex, ROT13) — and flags what looks like tool
// poisoning: hidden
// instructions, requests for credentials and local files, instructions
// about other servers' tools, invisible characters and descriptions far
// longer than their tools need. A model reads all of that text as
// instructions; a person choosing a server should see what it says.
//
// The rules are deliberately narrow: each names a phrase or a construction
// that ordinary descriptions do not use, in the languages the search
// reads, measured against real tool lists (testdata/clean.jsonl), a hostile
// server (testdata/hostile.json) and a labelled set of evasions and
// ordinary definitions (testdata/poison.jsonl; docs/BENCHMARKS.md).
package toolscan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
)

// Bounds on one scan: what a server may make the directory read.
const (
	maxWarnings     = 100 // per server
	maxMatch        = 120 // bytes of a span quoted in a warning
	sentenceContext = 300 // bytes either side of a match read as its sentence
)

// Scan returns the warnings of a server's tools and instructions, the most
// severe first (then in the order of the tools), at most one per rule and
// field. Every text of each tool's definition is read (pieces), as written
// and folded (fold: look-alike letters, accents, invisible characters and
// blank fillers; leet; base64, hex and ROT13 decoded), up to
// maxToolText bytes a tool and maxServerText a server.
func Scan(tools []mcpdir.Tool, instructions string) []mcpdir.ToolWarning {
	s := scanner{own: map[string]bool{}, cache: map[rune]string{}}
	for _, t := range tools {
		s.own[strings.ToLower(t.Name)] = true
	}
	left := maxServerText
	for _, t := range tools {
		ps, read, cut := pieces(t, min(maxToolText, left))
		left -= read
		for _, p := range ps {
			s.text(t.Name, p.field, p.text, p.shown)
			if p.name && p.field != "name" {
				s.paramName(t.Name, p.field, p.text, p.shown)
			}
		}
		s.overlong(t)
		if cut {
			s.add(mcpdir.ToolWarning{Kind: mcpdir.WarnOverlongDescription, Severity: mcpdir.SeverityLow, Tool: t.Name,
				Field: "input_schema", Match: "", Note: fmt.Sprintf("the scan read %d bytes of this tool's definition and stopped (at most %d a tool, %d a server): the rest was not read", read, maxToolText, maxServerText)})
		}
	}
	s.text("", "instructions", instructions, instructions)
	rank := map[string]int{mcpdir.SeverityHigh: 0, mcpdir.SeverityMedium: 1, mcpdir.SeverityLow: 2}
	slices.SortStableFunc(s.out, func(a, b mcpdir.ToolWarning) int { return rank[a.Severity] - rank[b.Severity] })
	return s.out
}

type scanner struct {
	own   map[string]bool // the server's own tool names, lower case
	out   []mcpdir.ToolWarning
	cache map[rune]string // foldRune's answers
}

func (s *scanner) add(w mcpdir.ToolWarning) {
	if len(s.out) < maxWarnings {
		s.out = append(s.out, w)
	}
}

// text scans one field's text with every rule, in each of its views;
// shown is the same text as written, byte for byte in place (a
// parameter's name is read with its "_" as spaces), what the warnings
// quote.
func (s *scanner) text(tool, field, text, shown string) {
	if text == "" {
		return
	}
	s.invisible(tool, field, shown, mcpdir.HiddenSpans(text))
	s.selectors(tool, field, shown)
	if len(text) < minRuleText {
		return // "string", "object": no rule matches so little
	}
	found := make([]bool, len(rules))
	var base view
	if !needsFold(text) {
		base = view{plain: text, lower: asciiLower(text)}
		s.rules(tool, field, shown, &base, nil, found)
	} else {
		// The text as written first, then each fold only where it
		// changed the text: the rest was read.
		same := view{plain: text, lower: asciiLower(text)}
		s.rules(tool, field, shown, &same, nil, found)
		how := "read with look-alike letters, accents and invisible characters folded"
		base = fold(text, foldOptions{skeleton: true}, s.cache)
		base.how, base.focus = how, base.changed()
		s.rules(tool, field, shown, &base, nil, found)
		base.focus = nil
		own := fold(text, foldOptions{}, s.cache) // a Russian text as Russian
		if own.plain != base.plain {
			own.how, own.focus = how, own.changed()
			s.rules(tool, field, shown, &own, nil, found)
		}
		if strings.ContainsFunc(text, func(r rune) bool { return isBlank(r) || mcpdir.Hidden(r) }) {
			joined := fold(text, foldOptions{skeleton: true, blanksJoin: true}, s.cache)
			joined.how, joined.focus = how, joined.changed()
			s.rules(tool, field, shown, &joined, nil, found)
		}
	}
	for _, one := range []byte{'i', 'l'} {
		if v, ok := leet(base, one); ok {
			s.rules(tool, field, shown, &v, nil, found)
		}
	}
	for _, e := range encodedRuns(base.plain) { // none in most texts: a loop over bytes tells
		var v view
		if needsFold(e.text) {
			v = fold(e.text, foldOptions{skeleton: true}, s.cache)
		} else {
			v = view{plain: e.text, lower: asciiLower(e.text)}
		}
		a, b := base.span(e.start, e.end)
		v.how = fmt.Sprintf("in %s that decodes to %q", e.as, clip(e.text))
		s.rules(tool, field, shown, &v, &[2]int{a, b}, found)
	}
	if !slices.Contains(found, true) && mayBeROT13(base.lower) {
		r := rot13(base)
		s.rules(tool, field, shown, &r, nil, found)
	}
}

// rules runs every rule not yet found in this field over a view of its
// text, adding a warning for each rule's first match; over, when set, is
// the span of the text as written that the whole view stands for (a
// decoded run).
func (s *scanner) rules(tool, field, shown string, v *view, over *[2]int, found []bool) {
	words := strings.ContainsAny(v.plain, " \t\n") || needsFold(v.plain) // Chinese and Japanese need no spaces
	for k, r := range rules {
		if found[k] || !words && !r.oneWord() {
			continue
		}
		for _, m := range r.find(v.lower, v.focus...) {
			if r.keep != nil && !r.keep(s, v.plain, v.lower, m) {
				continue
			}
			var start, end int
			if over != nil {
				start, end = over[0], over[1]
			} else {
				start, end = v.span(m[0], m[1])
				for start < end && strings.ContainsRune(" \t\"'`(", rune(shown[start])) {
					start++ // what a pattern needs before a word is not part of it
				}
			}
			note := r.note
			if read := strings.TrimSpace(v.plain[m[0]:m[1]]); v.how != "" && (over != nil || read != strings.TrimSpace(shown[start:end])) {
				note += fmt.Sprintf(" (%s: %q)", v.how, clip(read))
				if over != nil {
					note = r.note + fmt.Sprintf(" (%s)", v.how)
				}
			}
			s.add(mcpdir.ToolWarning{Kind: r.kind, Severity: r.severity, Tool: tool, Field: field,
				Start: start, End: end, Match: quote(shown[start:end]), Note: note})
			found[k] = true
			break // one warning per rule and field: the first span tells
		}
	}
}

// minRuleText is the length under which a text is read only for
// invisible characters: no rule matches fewer bytes.
const minRuleText = 8

// mayBeROT13 reports whether lower reads more like ROT13 than like
// English: it holds more of the commonest English words in ROT13 ("gur",
// "naq", "lbh") than as written. English and other texts are not worth a
// second pass of every rule.
func mayBeROT13(lower string) bool {
	count := func(words []string) (n int) {
		for _, w := range words {
			n += strings.Count(lower, w)
		}
		return n
	}
	rot := count([]string{" gur ", " naq ", " gb ", " bs ", " lbh ", " vf ", " vg ", " n ", " sbe ", " guvf ", " nyy ", " lbhe "})
	return rot > 0 && rot >= count([]string{" the ", " and ", " to ", " of ", " you ", " is ", " it ", " a ", " for ", " this ", " all ", " your "})
}

// clip is s cut to maxMatch bytes for a note, hidden characters shown.
func clip(s string) string {
	if len(s) > maxMatch {
		s = s[:cutAt(s, maxMatch)] + "…"
	}
	return mcpdir.Visible(s)
}

// selectors flags variation selectors (U+FE00–FE0F) after a letter of
// the Latin, Greek or Cyrillic scripts: they make an emoji of a symbol,
// and change nothing a person sees after a letter, where they split a
// word for a scanner and not for a model.
func (s *scanner) selectors(tool, field, text string) {
	var prev rune
	for i, r := range text {
		if r >= 0xFE00 && r <= 0xFE0F && prev < 0x530 && unicode.IsLetter(prev) {
			j := i
			for j < len(text) {
				c, n := utf8.DecodeRuneInString(text[j:])
				if !(c >= 0xFE00 && c <= 0xFE0F || isMark(c) || unicode.IsLetter(c) && c < 0x530) {
					break
				}
				j += n
			}
			s.add(mcpdir.ToolWarning{Kind: mcpdir.WarnInvisibleCharacters, Severity: mcpdir.SeverityMedium, Tool: tool,
				Field: field, Start: i, End: j, Match: quote(strings.NewReplacer("\uFE0F", `\u{FE0F}`, "\uFE0E", `\u{FE0E}`).Replace(text[i:j])),
				Note: "variation selectors between letters: a person sees nothing, they split the words for a scanner"})
			return // one a field
		}
		prev = r
	}
}

// find returns the rule's matches in lower, as FindAllStringSubmatchIndex
// would, looking only near its hints: the expressions are slow on long
// texts, and every match holds a hint.
//
// With focus set, only windows that hold one of its spans are read: a
// view that differs from one already read only there (leet) matches
// nothing new elsewhere.
func (r rule) find(lower string, focus ...[2]int) [][]int {
	ascii := !needsFold(lower) // then hints in other scripts cannot occur
	if r.also != nil && !slices.ContainsFunc(r.also, func(a string) bool {
		return !(ascii && a[0] >= utf8.RuneSelf) && strings.Contains(lower, a)
	}) {
		return nil
	}
	var windows [][2]int
	for _, h := range r.hints {
		if ascii && h[0] >= utf8.RuneSelf {
			continue
		}
		for i := 0; ; {
			j := strings.Index(lower[i:], h)
			if j < 0 {
				break
			}
			i += j
			w := [2]int{wordStart(lower, max(0, i-hintWindow)), wordEnd(lower, min(len(lower), i+len(h)+hintWindow))}
			if focus == nil || slices.ContainsFunc(focus, func(f [2]int) bool { return f[0] < w[1] && w[0] < f[1] }) {
				windows = append(windows, w)
			}
			i += len(h)
		}
	}
	if windows == nil {
		return nil
	}
	slices.SortFunc(windows, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][]int
	from, to := windows[0][0], windows[0][1]
	flush := func() {
		for _, m := range r.re.FindAllStringSubmatchIndex(lower[from:to], -1) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += from
				}
			}
			out = append(out, m)
		}
	}
	for _, w := range windows[1:] {
		if w[0] <= to {
			to = max(to, w[1])
			continue
		}
		flush()
		from, to = w[0], w[1]
	}
	flush()
	return out
}

// hintWindow is how far either side of a hint a match may reach: the
// longest construction a rule matches is shorter.
const hintWindow = 200

// wordStart and wordEnd move a window's edge out of a word, so that no
// word is cut to look like another ("resignore").
func wordStart(s string, i int) int {
	for i > 0 && s[i-1] != ' ' && s[i-1] != '\n' {
		i--
	}
	return i
}

func wordEnd(s string, i int) int {
	for i < len(s) && s[i] != ' ' && s[i] != '\n' {
		i++
	}
	return i
}

// invisible flags each run of hidden characters; a run of Unicode tag
// characters is ASCII spelt invisibly, and the warning says what it spells.
func (s *scanner) invisible(tool, field, text string, hidden [][2]int) {
	for _, sp := range hidden {
		run := text[sp[0]:sp[1]]
		w := mcpdir.ToolWarning{Kind: mcpdir.WarnInvisibleCharacters, Severity: mcpdir.SeverityMedium, Tool: tool,
			Field: field, Start: sp[0], End: sp[1], Match: quote(run),
			Note: "an invisible character: a model reads it, a person does not see it"}
		if n := utf8.RuneCountInString(run); n > 1 {
			w.Note = fmt.Sprintf("%d invisible characters: a model reads them, a person does not see them", n)
			if n >= 3 {
				w.Severity = mcpdir.SeverityHigh
			}
		}
		if spelt := tagText(run); spelt != "" {
			w.Severity = mcpdir.SeverityHigh
			w.Note = fmt.Sprintf("invisible Unicode tag characters spelling %q: text a model reads and a person cannot see", spelt)
		} else if strings.ContainsFunc(run, isBidi) {
			w.Severity = mcpdir.SeverityHigh
			w.Note = "direction-changing characters: the text shown is not in the order a model reads it"
		}
		s.add(w)
	}
}

// paramName flags a parameter whose name asks for a secret's content
// ("content_from_reading_ssh_id_rsa"): a model fills in what a name asks.
func (s *scanner) paramName(tool, field, words, name string) {
	var secret, content bool
	for _, w := range strings.Fields(strings.ToLower(words)) {
		secret = secret || secretNameWords[w]
		content = content || contentNameWords[w]
	}
	if secret && content {
		s.add(mcpdir.ToolWarning{Kind: mcpdir.WarnCredentialAccess, Severity: mcpdir.SeverityHigh, Tool: tool, Field: field,
			Start: 0, End: len(name), Match: quote(name), Note: "a parameter whose name asks the model for a secret file's content"})
	}
}

var (
	secretNameWords  = map[string]bool{"ssh": true, "rsa": true, "ed25519": true, "aws": true, "credentials": true, "passwd": true, "shadow": true, "netrc": true, "dotenv": true, "env": true, "mcp": true, "cursor": true, "wallet": true, "keychain": true, "history": true, "secrets": true, "private": true}
	contentNameWords = map[string]bool{"content": true, "contents": true, "reading": true, "read": true, "dump": true, "copy": true, "exfil": true}
)

func isBidi(r rune) bool {
	return r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069'
}

// tagText is what a run's Unicode tag characters (U+E0020–U+E007E) spell
// in ASCII, cut to maxMatch bytes.
func tagText(run string) string {
	var b strings.Builder
	for _, r := range run {
		if r >= 0xE0020 && r <= 0xE007E && b.Len() < maxMatch {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// overlong flags a description far longer than a tool needs: the longest
// of the real tool lists measured (testdata/clean.jsonl, 417 tools of 29
// servers) is 7 KiB; past overlongBar is room for instructions no tool
// needs, and for text pushed out of a person's sight.
func (s *scanner) overlong(t mcpdir.Tool) {
	if len(t.Description) <= overlongBar {
		return
	}
	s.add(mcpdir.ToolWarning{Kind: mcpdir.WarnOverlongDescription, Severity: mcpdir.SeverityLow, Tool: t.Name,
		Field: "description", Start: overlongBar, End: len(t.Description), Match: quote(t.Description[cutAt(t.Description, overlongBar):]),
		Note: fmt.Sprintf("a description of %d bytes or more: real tools need at most about 7 KiB; the text past %d bytes is rarely read by a person", len(t.Description), overlongBar)})
}

// overlongBar is the length past which a description is flagged.
const overlongBar = 8 << 10

// quote is a span as a warning shows it: at most maxMatch bytes, hidden
// characters as escapes.
func quote(s string) string {
	if len(s) > maxMatch {
		s = s[:cutAt(s, maxMatch)] + "…"
	}
	return mcpdir.Visible(s)
}

// cutAt is n moved back to a rune boundary of s.
func cutAt(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// asciiLower is s with ASCII letters in lower case: the same bytes at the
// same offsets otherwise, so that matches found in it are spans of s. (The
// expressions are written in lower case: case-folding them costs more
// than the whole scan.)
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
