// Package toolscan reads what servers tell models about their tools — each
// tool's name, title and description, what its schema says of its
// parameters (names, descriptions, defaults, examples), and the server's
// instructions — and flags what looks like tool poisoning: hidden
// instructions, requests for credentials and local files, instructions
// about other servers' tools, invisible characters and descriptions far
// longer than their tools need. A model reads all of that text as
// instructions; a person choosing a server should see what it says.
//
// The rules are deliberately narrow: each names a phrase or a construction
// that ordinary descriptions do not use, measured against real tool lists
// (testdata/clean.jsonl) and a hostile server (docs/BENCHMARKS.md).
package toolscan

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
)

// Bounds on one scan: what a server may make the directory read.
const (
	maxWarnings     = 100 // per server
	maxSchemaTexts  = 200 // texts of parameters read per tool
	maxMatch        = 120 // bytes of a span quoted in a warning
	sentenceContext = 300 // bytes either side of a match read as its sentence
)

// Scan returns the warnings of a server's tools and instructions, the most
// severe first (then in the order of the tools), at most one per rule and
// field.
func Scan(tools []mcpdir.Tool, instructions string) []mcpdir.ToolWarning {
	s := scanner{own: map[string]bool{}}
	for _, t := range tools {
		s.own[strings.ToLower(t.Name)] = true
	}
	for _, t := range tools {
		s.text(t.Name, "name", t.Name, t.Name)
		s.text(t.Name, "title", t.Title, t.Title)
		s.text(t.Name, "description", t.Description, t.Description)
		s.overlong(t)
		for _, p := range schemaTexts(t.InputSchema) {
			s.text(t.Name, p.field, p.text, p.shown)
			if p.name {
				s.paramName(t.Name, p.field, p.text, p.shown)
			}
		}
	}
	s.text("", "instructions", instructions, instructions)
	rank := map[string]int{mcpdir.SeverityHigh: 0, mcpdir.SeverityMedium: 1, mcpdir.SeverityLow: 2}
	slices.SortStableFunc(s.out, func(a, b mcpdir.ToolWarning) int { return rank[a.Severity] - rank[b.Severity] })
	return s.out
}

type scanner struct {
	own map[string]bool // the server's own tool names, lower case
	out []mcpdir.ToolWarning
}

func (s *scanner) add(w mcpdir.ToolWarning) {
	if len(s.out) < maxWarnings {
		s.out = append(s.out, w)
	}
}

// text scans one field's text with every rule; shown is the same text as
// written, byte for byte in place (a parameter's name is read with its "_"
// as spaces), what the warnings quote.
func (s *scanner) text(tool, field, text, shown string) {
	if text == "" {
		return
	}
	hidden := mcpdir.HiddenSpans(text)
	s.invisible(tool, field, shown, hidden)
	plain, at := stripHidden(text, hidden)
	lower := asciiLower(plain)
	for _, r := range rules {
		for _, m := range r.find(lower) {
			if r.keep != nil && !r.keep(s, plain, lower, m) {
				continue
			}
			start, end := at(m[0]), at(m[1])
			for start < end && strings.ContainsRune(" \t\"'`(", rune(text[start])) {
				start++ // what a pattern needs before a word is not part of it
			}
			s.add(mcpdir.ToolWarning{Kind: r.kind, Severity: r.severity, Tool: tool, Field: field,
				Start: start, End: end, Match: quote(shown[start:end]), Note: r.note})
			break // one warning per rule and field: the first span tells
		}
	}
}

// find returns the rule's matches in lower, as FindAllStringSubmatchIndex
// would, looking only near its hints: the expressions are slow on long
// texts, and every match holds a hint.
func (r rule) find(lower string) [][]int {
	if r.also != nil && !slices.ContainsFunc(r.also, func(a string) bool { return strings.Contains(lower, a) }) {
		return nil
	}
	var windows [][2]int
	for _, h := range r.hints {
		for i := 0; ; {
			j := strings.Index(lower[i:], h)
			if j < 0 {
				break
			}
			i += j
			windows = append(windows, [2]int{wordStart(lower, max(0, i-hintWindow)), wordEnd(lower, min(len(lower), i+len(h)+hintWindow))})
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

// stripHidden is text without its hidden characters (at spans, as
// mcpdir.HiddenSpans finds them), so that a phrase split by zero-width
// spaces still reads as the phrase, and a map from an offset in it back to
// the same place in text.
func stripHidden(text string, spans [][2]int) (string, func(int) int) {
	if spans == nil {
		return text, func(i int) int { return i }
	}
	var b strings.Builder
	var starts []int // in the stripped text, where each kept piece begins
	var origins []int
	last := 0
	for _, sp := range append(spans, [2]int{len(text), len(text)}) {
		starts = append(starts, b.Len())
		origins = append(origins, last)
		b.WriteString(text[last:sp[0]])
		last = sp[1]
	}
	return b.String(), func(i int) int {
		k, _ := slices.BinarySearch(starts, i+1)
		return origins[k-1] + i - starts[k-1]
	}
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

// schemaText is what a schema says of a parameter, and where: text as the
// rules read it, shown as written; name marks a parameter's name (read in
// words: its "_", "-" and "." as spaces, in place).
type schemaText struct {
	field, text, shown string
	name               bool
}

// schemaTexts are what a tool's schema says of its parameters (nested
// ones too): names, descriptions, titles, string defaults, examples and
// enumerated values, at most maxSchemaTexts.
func schemaTexts(schema json.RawMessage) []schemaText {
	if len(schema) == 0 {
		return nil
	}
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []schemaText
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		props, _ := node["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			p, ok := props[name].(map[string]any)
			if !ok || len(out) >= maxSchemaTexts {
				continue
			}
			field := path + ".properties." + name
			// A parameter's name is read by the model too ("full-schema
			// poisoning"): its words, as a phrase.
			out = append(out, schemaText{field, strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(name), name, true})
			for _, k := range []string{"description", "title", "default"} {
				if d, ok := p[k].(string); ok && d != "" {
					out = append(out, schemaText{field: field + "." + k, text: d, shown: d})
				}
			}
			for _, k := range []string{"examples", "enum"} {
				vs, _ := p[k].([]any)
				for i, v := range vs[:min(len(vs), 8)] {
					if d, ok := v.(string); ok && d != "" {
						out = append(out, schemaText{field: fmt.Sprintf("%s.%s.%d", field, k, i), text: d, shown: d})
					}
				}
			}
			walk(field, p)
			if items, ok := p["items"].(map[string]any); ok {
				walk(field+".items", items)
			}
		}
	}
	walk("input_schema", root)
	return out
}

// rule is one construction the scanner looks for.
type rule struct {
	kind, severity string
	// hints are lower-case strings one of which any match contains: a
	// cheap test before the expression runs.
	hints []string
	// also, when set, are lower-case strings one of which the text must
	// hold too.
	also []string
	re   *regexp.Regexp
	// keep, when set, decides whether a match counts, from its sentence
	// (text, and the same in lower case).
	keep func(s *scanner, text, lower string, m []int) bool
	note string
}

// sentence is the sentence around text[start:end]: from the last full
// stop, line break or colon-less end before it to the next, within
// sentenceContext bytes either side.
func sentence(text string, start, end int) string {
	from := max(0, start-sentenceContext)
	if i := strings.LastIndexAny(text[from:start], ".!?\n"); i >= 0 {
		from += i + 1
	}
	to := min(len(text), end+sentenceContext)
	if i := strings.IndexAny(text[end:to], ".!?\n"); i >= 0 {
		to = end + i
	}
	return text[cutAt(text, from):cutAt(text, to)]
}

var (
	// Verbs that ask the model to read something or hand it on: the base
	// form only, as an instruction is written ("read", not "reads").
	readOrSend = regexp.MustCompile(`\b(read|open|cat|load|pass|send|include|attach|upload|forward|append|post|share|transmit|copy|paste|put|provide|exfiltrate|access|embed|insert)\b`)
	// Verbs that hand something on (not those that only read it).
	handOn = regexp.MustCompile(`\b(pass|send|include|attach|upload|forward|append|post|share|transmit|paste|put|provide|exfiltrate|embed|insert|add)\b`)
	// What a content-passing instruction is after.
	secretWords = regexp.MustCompile(`\b(files?|keys?|tokens?|secrets?|passwords?|credentials?|config(uration)?|\.env|environment|ssh|cookies?|session|history|conversation|chat|messages?)\b`)
	// A name that reads as a tool's: snake_case, camelCase or dotted.
	toolLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+$|^[a-z]+[A-Z][A-Za-z0-9]*$`)
	// Words that make a mention of another tool an instruction about it.
	directive = regexp.MustCompile(`\b(always|must|never|instead|important|make\s+sure|ensure|regardless|change|replace|redirect|override|overrid(e|ing)|before|whenever|every\s+time|all\s+(emails|messages|requests|calls))\b`)
)

// sentenceHas keeps a match whose sentence also matches re.
func sentenceHas(re *regexp.Regexp) func(*scanner, string, string, []int) bool {
	return func(_ *scanner, _, lower string, m []int) bool { return re.MatchString(sentence(lower, m[0], m[1])) }
}

// notPossessive drops "never tell the user's password": the user's, not the user.
func notPossessive(_ *scanner, _, lower string, m []int) bool {
	rest := lower[m[1]:]
	return !strings.HasPrefix(rest, "'s") && !strings.HasPrefix(rest, "’s")
}

// foreignTool keeps a mention of a tool (the match's first group) that is
// not the server's own, in a sentence that tells the model what to do.
func foreignTool(s *scanner, text, lower string, m []int) bool {
	name := strings.Trim(text[m[2]:m[3]], "`'\"")
	return toolLike.MatchString(name) && !s.own[strings.ToLower(name)] && directive.MatchString(sentence(lower, m[0], m[1]))
}

var rules = []rule{
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"<", "[inst", "[/inst"}, nil,
		regexp.MustCompile(`<\s*/?\s*(important|system|instructions?|secret|hidden|critical|sys|note[_ -]?to[_ -]?(ai|assistant|model|llm)|ai[_ -]?instructions?|assistant[_ -]?(note|instructions?))\s*>|<\|im_start\|>|\[/?inst\]|<<\s*sys\s*>>`),
		nil, "a tag that addresses the model, as hidden instructions are wrapped"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"ignore", "disregard", "forget", "override", "bypass"}, nil,
		regexp.MustCompile(`\b(ignores?|disregards?|forgets?|overrides?|bypass(es)?)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding|other|original|system|safety)\s+(instructions|prompts?|rules|directions|guidelines|messages)`),
		nil, "tells the model to set aside its instructions"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"not", "n't", "never"}, []string{"user", "human"},
		regexp.MustCompile(`\b(do\s+not|don't|never|must\s+not)\s+(tell|inform|mention|reveal|notify|alert|show|disclose|let)\b[^.\n]{0,60}?\b(the\s+)?(user|human)s?\b`),
		notPossessive, "tells the model to keep something from the user"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"without", "hide", "conceal", "not", "n't"}, []string{"user", "human"},
		regexp.MustCompile(`\bwithout\s+(telling|informing|notifying|alerting|letting)\s+(the\s+)?(user|human)|\b(hide|conceal)\b[^.\n]{0,40}?\bfrom\s+(the\s+)?(user|human)|\b(the\s+)?user\s+(must|should|does|need)\s*(not|n't)\s+(know|see|notice|be\s+(told|informed|aware))`),
		nil, "tells the model to act behind the user's back"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"you are now", "instructions", "system prompt", "from now on"}, nil,
		regexp.MustCompile(`\byou\s+are\s+now\s+(a|an|in)\b|\bnew\s+(system\s+)?instructions\s*:|\bsystem\s+prompt\s*:|\bfrom\s+now\s+on,?\s+you\b`),
		nil, "gives the model new instructions of its own"},
	{mcpdir.WarnHiddenInstruction, mcpdir.SeverityHigh, []string{"note to", "dear", "hey", "system:", "assistant:"}, nil,
		regexp.MustCompile(`\bnote\s+(to|for)\s+(the\s+)?(ai|assistant|model|llm|agent)\b|\b(dear|hey)\s+(ai|assistant|model|llm|agent|claude|chatgpt|gpt|gemini|copilot)\b|(^|[.!?>]\s*)(system|assistant)\s*:\s`),
		func(_ *scanner, text, _ string, m []int) bool {
			// "SYSTEM:" or "ASSISTANT:" as a chat role is written in capitals;
			// "Operating system: linux" is not one.
			span := strings.TrimSpace(strings.TrimLeft(text[m[0]:m[1]], ".!?> "))
			return !strings.HasPrefix(strings.ToLower(span), "system") && !strings.HasPrefix(strings.ToLower(span), "assistant") ||
				strings.HasPrefix(span, "SYSTEM") || strings.HasPrefix(span, "ASSISTANT")
		}, "addresses the model over the user's head"},
	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"ssh", "id_", "credentials", ".netrc", ".npmrc", ".pypirc", ".pgpass", "config", "passwd", "shadow", "mcp.json", "cursor/", "wallet", "_history", "gnupg", ".env"}, nil,
		regexp.MustCompile(`(~|\$home|%userprofile%)?/?\.ssh\b/?|\bid_(rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|\.git-credentials|(^|[\s"'\x60(/~])\.(netrc|npmrc|pypirc|pgpass)\b|\.kube/config|\.docker/config\.json|/etc/(passwd|shadow)\b|\bmcp\.json\b|claude_desktop_config\.json|\.cursor/|\bwallet\.dat\b|\.(bash|zsh)_history|\.gnupg\b|(^|[\s"'\x60(/~])\.env\b`),
		sentenceHas(readOrSend), "asks the model to read or hand on a secret or a local file"},
	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"content", "text"}, []string{"pass", "send", "include", "attach", "upload", "forward", "append", "post", "share", "transmit", "paste", "put", "provide", "exfiltrate", "embed", "insert", "add"},
		regexp.MustCompile(`\b(its|the|their|that|this|whole|full|entire)\s+(file'?s?\s+)?(content|contents|text)\s+(as|in|into|inside|via|through)\b|\b(content|contents)\s+of\s+(the\s+|any\s+|every\s+|all\s+)?(file|files|key|keys)\b`),
		func(_ *scanner, _, lower string, m []int) bool {
			sen := sentence(lower, m[0], m[1])
			return handOn.MatchString(sen) && secretWords.MatchString(sen)
		}, "asks the model to pass a file's or a secret's content into a call"},
	{mcpdir.WarnCredentialAccess, mcpdir.SeverityHigh, []string{"environment", "env vars", "keys", "secrets", "tokens", "credentials", "passwords", "cookies"}, nil,
		regexp.MustCompile(`\b(all|every|any|your|the\s+user'?s)\s+(environment\s+variables|env\s+vars|api\s+keys|secrets|tokens|credentials|passwords|private\s+keys|cookies)\b`),
		sentenceHas(handOn), "asks the model to hand on keys, tokens or passwords"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"tool"}, nil,
		regexp.MustCompile("\\b(?:the|a|any)\\s+(`?[A-Za-z][\\w.-]*`?)\\s+tool\\b|\\btool\\s+(`?[A-Za-z][\\w.-]*`?)"),
		func(s *scanner, text, lower string, m []int) bool {
			if m[2] < 0 { // the second form
				m = []int{m[0], m[1], m[4], m[5]}
			}
			return foreignTool(s, text, lower, m)
		}, "tells the model how to use a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"call", "invok", "use", "using", "run"}, []string{"when", "if", "before", "after"},
		regexp.MustCompile("\\b(?:when|whenever|if|before|after)\\s+(?:you\\s+)?(?:use|call|invoke|using|calling|invoking|run|running)\\s+(?:the\\s+|any\\s+)?(`?[A-Za-z][\\w.-]*`?)"),
		foreignTool, "tells the model how to use a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"invoked", "called", "used", "executed", "run"}, []string{"when", "if", "before", "after", "each time", "every time"},
		regexp.MustCompile("\\b(?:when|whenever|if|before|after|each\\s+time|every\\s+time)\\s+(?:the\\s+)?(?:\\([\\w.-]+\\)\\s*)?(`?[A-Za-z][\\w.-]*`?)\\s+(?:tool\\s+)?(?:is|gets|has\\s+been)\\s+(?:invoked|called|used|executed|run)\\b"),
		foreignTool, "tells the model how to use a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"call", "invoke", "use "}, []string{"also", "first", "then", "must", "always", "make sure"},
		regexp.MustCompile("\\b(?:also|first|then|always|must)\\s+(?:call|invoke|use)\\s+(?:the\\s+)?(`?[A-Za-z][\\w.-]*`?)"),
		func(s *scanner, text, lower string, m []int) bool {
			name := strings.Trim(text[m[2]:m[3]], "`'\"")
			return toolLike.MatchString(name) && !s.own[strings.ToLower(name)]
		}, "tells the model to call a tool this server does not offer"},
	{mcpdir.WarnToolShadowing, mcpdir.SeverityHigh, []string{"other"}, nil,
		regexp.MustCompile(`\b(all|any|every)\s+other\s+(tools?|servers?|mcp\s+servers?)\b`),
		sentenceHas(directive), "gives instructions for other servers' tools"},
}
