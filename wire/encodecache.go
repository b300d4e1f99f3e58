package wire

import (
	"sync"

	"github.com/mcpdir/mcpdir"
)

// EncodingCache keeps one JSON encoding per indexed entry, made once, so
// that a response listing 50 hits is assembled by copying bytes rather than
// encoding 50 records per request (http's BenchmarkEncodeSearchResponse).
//
// It is keyed by the entry pointer: an indexed entry is never modified (an
// update indexes a new one), so a pointer's encoding never goes stale. A
// response takes the read lock once for all its hits, since per-hit lookups
// in a concurrent map cost a fifth of the server's CPU under load.
type EncodingCache struct {
	encode func(*mcpdir.Entry) []byte

	mu  sync.RWMutex
	enc map[*mcpdir.Entry][]byte
}

// maxCachedEncodings bounds the cache (a few hundred bytes an item); when it
// is full it starts afresh, which also lets go of replaced entries.
const maxCachedEncodings = 1 << 16

// NewEncodingCache returns a cache of encode's results.
func NewEncodingCache(encode func(*mcpdir.Entry) []byte) *EncodingCache {
	return &EncodingCache{encode: encode}
}

// AppendJoined appends the encodings of the hits' entries to dst, separated
// by commas; after each it appends what tail adds for the hit (nil: nothing).
func (c *EncodingCache) AppendJoined(dst []byte, hits []mcpdir.Hit, tail func(dst []byte, h mcpdir.Hit) []byte) []byte {
	var buf [64][]byte
	for i, enc := range c.Lookup(buf[:0], hits) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, enc...)
		if tail != nil {
			dst = tail(dst, hits[i])
		}
	}
	return dst
}

// Lookup appends the encodings of the hits' entries to dst, in order,
// encoding those not cached yet. Usually every one is: one lookup a hit,
// under one read lock.
func (c *EncodingCache) Lookup(dst [][]byte, hits []mcpdir.Hit) [][]byte {
	start := len(dst)
	c.mu.RLock()
	for _, h := range hits {
		enc, ok := c.enc[h.Entry]
		if !ok {
			c.mu.RUnlock()
			return c.lookupMissing(dst[:start], hits)
		}
		dst = append(dst, enc)
	}
	c.mu.RUnlock()
	return dst
}

// lookupMissing is Lookup when some encodings are not cached yet: it
// encodes them outside the lock first.
func (c *EncodingCache) lookupMissing(dst [][]byte, hits []mcpdir.Hit) [][]byte {
	var missing []*mcpdir.Entry
	c.mu.RLock()
	for _, h := range hits {
		if _, ok := c.enc[h.Entry]; !ok {
			missing = append(missing, h.Entry)
		}
	}
	c.mu.RUnlock()
	if len(missing) > 0 {
		encoded := make([][]byte, len(missing))
		for i, e := range missing {
			encoded[i] = c.encode(e)
		}
		c.mu.Lock()
		if c.enc == nil || len(c.enc)+len(missing) > maxCachedEncodings {
			c.enc = make(map[*mcpdir.Entry][]byte, len(missing))
		}
		for i, e := range missing {
			c.enc[e] = encoded[i]
		}
		c.mu.Unlock()
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, h := range hits {
		enc, ok := c.enc[h.Entry]
		if !ok { // dropped by a concurrent reset
			enc = c.encode(h.Entry)
		}
		dst = append(dst, enc)
	}
	return dst
}

// Len is the number of cached encodings.
func (c *EncodingCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.enc)
}
