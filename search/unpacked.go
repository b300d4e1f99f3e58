package search

import (
	"sync/atomic"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// unpackedCache keeps the entries of recent hits unpacked, one slot an
// ordinal modulo its size: unpacking costs about a microsecond, and a hit
// that stays cached is the same pointer from search to search, which is
// what callers keep their work by (wire.EncodingCache, an item's JSON).
// Its slots are read and written under the index's read lock, replaced
// under its write lock.
type unpackedCache struct {
	slots []atomic.Pointer[unpackedEntry]
}

type unpackedEntry struct {
	d uint32
	e *mcpdir.Entry
}

// maxUnpacked bounds the slots: every entry of a directory of up to this
// many stays unpacked once found (at 1x, 28,000), a bigger one keeps its
// recent hits.
const maxUnpacked = 1 << 16

// entryAt is the entry of live ordinal d; under the read lock.
func (x *Index) entryAt(d uint32) *mcpdir.Entry {
	c := &x.unpacked
	if len(c.slots) == 0 {
		return x.packs[d].Unpack()
	}
	s := &c.slots[d&uint32(len(c.slots)-1)]
	if u := s.Load(); u != nil && u.d == d {
		return u.e
	}
	e := x.packs[d].Unpack()
	s.Store(&unpackedEntry{d: d, e: e})
	return e
}

// peek is p's entry (ordinal d) from the cache if there, else unpacked
// without taking a slot: for Get, which a walk over many ids calls.
func (c *unpackedCache) peek(p *packed.Entry, d uint32) *mcpdir.Entry {
	if e := c.cached(d); e != nil {
		return e
	}
	return p.Unpack()
}

// cached is ordinal d's entry if it is kept unpacked, or nil.
func (c *unpackedCache) cached(d uint32) *mcpdir.Entry {
	if len(c.slots) > 0 {
		if u := c.slots[d&uint32(len(c.slots)-1)].Load(); u != nil && u.d == d {
			return u.e
		}
	}
	return nil
}

// grow makes room for n ordinals, up to maxUnpacked; under the write lock.
func (c *unpackedCache) grow(n int) {
	if len(c.slots) < min(n, maxUnpacked) {
		c.reset(n)
	}
}

// reset empties the cache, sized for n ordinals: ordinals were renumbered
// or there are many more; under the write lock.
func (c *unpackedCache) reset(n int) {
	size := 64
	for size < min(n, maxUnpacked) {
		size *= 2
	}
	c.slots = make([]atomic.Pointer[unpackedEntry], size)
}
