package toolscan

import "github.com/mcpdir/mcpdir"

// Inner is the index a scanning Index writes to (toolsearch.Index).
type Inner interface {
	mcpdir.SearchIndex
	Entries(yield func(*mcpdir.Entry))
}

// Index scans each entry written to it and passes on a copy carrying the
// warnings (mcpdir.Entry.ToolWarnings), so that searches can filter on
// them and every view shows them, from the checks and imports alike. The
// entries it is given are not changed: they may be in use.
type Index struct{ Inner }

// NewIndex returns an Index writing to inner.
func NewIndex(inner Inner) *Index { return &Index{inner} }

// Upsert scans entries and adds or replaces them in the inner index.
func (x *Index) Upsert(entries ...*mcpdir.Entry) {
	out := make([]*mcpdir.Entry, len(entries))
	for i, e := range entries {
		out[i] = e
		var instructions string
		if c := e.CheckedLive(); c != nil {
			instructions = c.Instructions
		}
		tools := e.OfferedTools()
		if len(tools) == 0 && instructions == "" && e.ToolWarnings == nil {
			continue // nothing to read, nothing to change: most entries
		}
		c := *e
		c.ToolWarnings = Scan(tools, instructions)
		out[i] = &c
	}
	x.Inner.Upsert(out...)
}
