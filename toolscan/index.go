package toolscan

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// Inner is the index a scanning Index writes to (toolsearch.Index).
type Inner interface {
	mcpdir.SearchIndex
	Entries(yield func(*mcpdir.Entry))
	UpsertPacked(ps ...packed.Entry)
}

// maxKept bounds the scans an Index remembers; past it, it forgets them
// all and starts again (a directory has about one definition per server).
const maxKept = 1 << 17

// Index scans each entry written to it and passes on a copy carrying the
// warnings (mcpdir.Entry.ToolWarnings), so that searches can filter on
// them and every view shows them, from the checks and imports alike. The
// entries it is given are not changed: they may be in use. A definition is
// scanned once: what it found is kept by a hash of what was read, so that
// re-indexing (a merge, a new brief, a replica catching up) costs no scan.
type Index struct {
	Inner
	mu   sync.Mutex
	kept map[[sha256.Size]byte][]mcpdir.ToolWarning
	// Scans counts the scans run (not those found kept), for tests and
	// measurements.
	Scans int
}

// NewIndex returns an Index writing to inner.
func NewIndex(inner Inner) *Index { return &Index{Inner: inner} }

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
		c.ToolWarnings = x.scan(tools, instructions)
		out[i] = &c
	}
	x.Inner.Upsert(out...)
}

// UpsertPacked passes on the packed entries that have nothing to scan as
// they are (most), and scans the others as Upsert does.
func (x *Index) UpsertPacked(ps ...packed.Entry) {
	plain, other := packed.SplitPlain(ps)
	x.Inner.UpsertPacked(plain...)
	if other != nil {
		x.Upsert(other...)
	}
}

// scan is Scan's answer for a definition, from what is kept when it was
// scanned before.
func (x *Index) scan(tools []mcpdir.Tool, instructions string) []mcpdir.ToolWarning {
	b, err := json.Marshal(struct {
		T []mcpdir.Tool
		I string
	}{tools, instructions})
	if err != nil {
		return Scan(tools, instructions)
	}
	key := sha256.Sum256(b)
	x.mu.Lock()
	w, ok := x.kept[key]
	x.mu.Unlock()
	if ok {
		return w
	}
	w = Scan(tools, instructions)
	x.mu.Lock()
	if x.kept == nil || len(x.kept) >= maxKept {
		x.kept = make(map[[sha256.Size]byte][]mcpdir.ToolWarning)
	}
	x.kept[key] = w
	x.Scans++
	x.mu.Unlock()
	return w
}
