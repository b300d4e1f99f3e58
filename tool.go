package mcpdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds on a tool's definition, whoever gives it (a server's tools/list, an
// imported record): nothing of it is trusted.
const (
	MaxTools     = 400
	maxToolName  = 128
	maxToolTitle = 200
	// MaxToolDescription bounds a description: real ones run to 7 KiB
	// (toolscan/testdata/clean.jsonl), and what is longer is flagged.
	MaxToolDescription = 16 << 10
	MaxToolSchema      = 64 << 10 // canonical JSON bytes of an input schema
	maxToolAnnotation  = 4 << 10
)

// Tool is one tool a server offers: its definition as the server gives it,
// bounded, with its fingerprint.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the tool's JSON Schema of its arguments, as canonical
	// JSON (keys sorted, no spaces), at most MaxToolSchema bytes.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema is the JSON Schema of the tool's structured result, as
	// canonical JSON, at most MaxToolSchema bytes: a model reads it too.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Annotations are the server's hints (readOnlyHint, …), canonical JSON.
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Cut names what was cut to fit the bounds: "description",
	// "input_schema", "output_schema", "annotations".
	Cut []string `json:"cut,omitempty"`
	// Fingerprint is the SHA-256 of the definition's canonical JSON (name,
	// title, description, input schema, annotations), hex: a tool whose
	// fingerprint changed was redefined. (A tool without an output schema
	// has the fingerprint it had before output schemas were kept.)
	Fingerprint string `json:"fingerprint,omitempty"`
}

// UnmarshalJSON reads a tool in our names or MCP's (inputSchema,
// outputSchema).
func (t *Tool) UnmarshalJSON(b []byte) error {
	type plain Tool
	var v struct {
		plain
		MCPInputSchema  json.RawMessage `json:"inputSchema"`
		MCPOutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = Tool(v.plain)
	if len(t.InputSchema) == 0 && len(v.MCPInputSchema) > 0 {
		t.InputSchema = v.MCPInputSchema
	}
	if len(t.OutputSchema) == 0 && len(v.MCPOutputSchema) > 0 {
		t.OutputSchema = v.MCPOutputSchema
	}
	return nil
}

// CleanTools bounds and cleans a list of tools: at most MaxTools, text
// valid UTF-8 without control characters and cut to its bounds, schemas
// and annotations canonical and bounded, each fingerprinted; tools without
// a name are dropped, and a name listed twice keeps its first definition.
func CleanTools(tools []Tool) []Tool {
	out := make([]Tool, 0, min(len(tools), MaxTools))
	seen := map[string]bool{}
	for _, t := range tools {
		if len(out) == MaxTools {
			break
		}
		if t = CleanTool(t); t.Name != "" && !seen[t.Name] {
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	return out
}

// CleanTool bounds and cleans one tool, and fingerprints it.
func CleanTool(t Tool) Tool {
	c := Tool{Name: cleanText(t.Name, maxToolName), Title: cleanText(t.Title, maxToolTitle)}
	if c.Description = cleanText(t.Description, MaxToolDescription); len(c.Description) < len(strings.TrimSpace(t.Description)) {
		c.Cut = append(c.Cut, "description")
	}
	var cut bool
	if c.InputSchema, cut = canonical(t.InputSchema, MaxToolSchema); cut {
		c.Cut = append(c.Cut, "input_schema")
	}
	if c.OutputSchema, cut = canonical(t.OutputSchema, MaxToolSchema); cut {
		c.Cut = append(c.Cut, "output_schema")
	}
	if c.Annotations, cut = canonical(t.Annotations, maxToolAnnotation); cut {
		c.Cut = append(c.Cut, "annotations")
	}
	c.Fingerprint = c.fingerprint()
	return c
}

// canonical is raw as canonical JSON (an object's keys sorted, no
// insignificant space, numbers as written), or nothing when it is not a
// JSON object or its canonical form is over max bytes (cut reports that).
func canonical(raw json.RawMessage, max int) (_ json.RawMessage, cut bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	if dec.Decode(&v) != nil || v == nil {
		return nil, true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil, true
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > max {
		return nil, true
	}
	return json.RawMessage(b), false
}

// fingerprint hashes the definition (not what was cut, not itself).
func (t Tool) fingerprint() string {
	def, _ := json.Marshal(struct {
		Name         string          `json:"name"`
		Title        string          `json:"title,omitempty"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
		Annotations  json.RawMessage `json:"annotations,omitempty"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}{t.Name, t.Title, t.Description, t.InputSchema, t.Annotations, t.OutputSchema})
	sum := sha256.Sum256(def)
	return hex.EncodeToString(sum[:])
}

// ToolsFingerprint is a list's fingerprint: the SHA-256 of its tools'
// names and fingerprints, in name order (the order a server lists them in
// does not change what it offers).
func ToolsFingerprint(tools []Tool) string {
	lines := make([]string, len(tools))
	for i, t := range tools {
		lines[i] = t.Name + " " + t.FingerprintOrNew()
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// FingerprintOrNew is the fingerprint the tool carries, or its
// definition's when it carries none.
func (t Tool) FingerprintOrNew() string {
	if t.Fingerprint != "" {
		return t.Fingerprint
	}
	return t.fingerprint()
}

// ToolChange is a change of a server's tool list between two checks.
type ToolChange struct {
	At time.Time `json:"at"`
	// First marks the first list seen: every tool in Added.
	First   bool          `json:"first,omitempty"`
	Added   []string      `json:"added,omitempty"`
	Removed []string      `json:"removed,omitempty"`
	Changed []ToolChanged `json:"changed,omitempty"`
	// Fingerprint is the list's after the change.
	Fingerprint string `json:"fingerprint"`
}

// ToolChanged is one tool redefined, and which of its fields changed
// ("title", "description", "input_schema", "annotations", "output_schema").
type ToolChanged struct {
	Name   string   `json:"name"`
	Fields []string `json:"fields"`
}

// MaxToolChanges is how many changes of its tools an entry keeps.
const MaxToolChanges = 20

// DiffTools is what changed from one list to another, tools by name.
func DiffTools(before, after []Tool) (c ToolChange, changed bool) {
	old := make(map[string]Tool, len(before))
	for _, t := range before {
		old[t.Name] = t
	}
	now := make(map[string]bool, len(after))
	for _, t := range after {
		now[t.Name] = true
		o, ok := old[t.Name]
		if !ok {
			c.Added = append(c.Added, t.Name)
			continue
		}
		var fields []string
		if o.Title != t.Title {
			fields = append(fields, "title")
		}
		if o.Description != t.Description {
			fields = append(fields, "description")
		}
		if !bytes.Equal(o.InputSchema, t.InputSchema) {
			fields = append(fields, "input_schema")
		}
		if !bytes.Equal(o.Annotations, t.Annotations) {
			fields = append(fields, "annotations")
		}
		// An output schema first seen is not a redefinition: lists checked
		// before output schemas were kept hold none.
		if len(o.OutputSchema) > 0 && !bytes.Equal(o.OutputSchema, t.OutputSchema) {
			fields = append(fields, "output_schema")
		}
		if fields != nil {
			c.Changed = append(c.Changed, ToolChanged{Name: t.Name, Fields: fields})
		}
	}
	for _, t := range before {
		if !now[t.Name] {
			c.Removed = append(c.Removed, t.Name)
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Removed)
	slices.SortFunc(c.Changed, func(a, b ToolChanged) int { return strings.Compare(a.Name, b.Name) })
	c.Fingerprint = ToolsFingerprint(after)
	return c, c.Added != nil || c.Removed != nil || c.Changed != nil
}

// Redefined reports whether a change altered what tools already there
// say or take: the sign of a server changing its tools after it was
// trusted (a "rug pull"), unlike tools merely added or removed.
func (c ToolChange) Redefined() bool { return !c.First && len(c.Changed) > 0 }

// Words says a change as people read it.
func (c ToolChange) Words() string {
	if c.First {
		return "first seen with " + count(len(c.Added), "tool")
	}
	var parts []string
	if len(c.Added) > 0 {
		parts = append(parts, "added "+strings.Join(c.Added, ", "))
	}
	if len(c.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(c.Removed, ", "))
	}
	for _, ch := range c.Changed {
		parts = append(parts, "changed the "+strings.ReplaceAll(strings.Join(ch.Fields, " and "), "_", " ")+" of "+ch.Name)
	}
	return strings.Join(parts, "; ")
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
