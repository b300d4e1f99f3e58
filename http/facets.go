package http

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpdir/mcpdir"
)

// facetCache keeps the encoded facets of recent searches, by keywords and
// filter, for one generation of the index. Counting facets walks every
// match of a query, the dearest part of a search with many matches (a
// tenth of the server's CPU under load, in docs/BENCHMARKS.md), while the
// queries people send repeat: a search whose facets are cached asks the
// index for its hits only. The facets are exact: any change to the index
// starts the cache afresh.
type facetCache struct {
	mu      sync.Mutex
	gen     uint64
	encoded map[string][]byte
}

// maxCachedFacets bounds the cache (facets are a few hundred bytes); when
// it is full it starts afresh.
const maxCachedFacets = 4096

// get returns the facets cached for key at generation gen.
func (c *facetCache) get(gen uint64, key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil, false
	}
	b, ok := c.encoded[key]
	return b, ok
}

// put caches the facets of key counted at generation gen (or later: a
// write between reading the generation and searching moves it on, so the
// next search misses).
func (c *facetCache) put(gen uint64, key string, encoded []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen || len(c.encoded) >= maxCachedFacets {
		c.gen, c.encoded = gen, make(map[string][]byte)
	}
	c.encoded[key] = encoded
}

// facetKey identifies a search's matches: its keywords and every field of
// its filter.
func facetKey(keywords string, f mcpdir.Filter) string {
	if f.IsZero() {
		return keywords
	}
	return string(f.AppendKey(strconv.AppendQuote(make([]byte, 0, 64), keywords)))
}

// encodeFacets is the facets' JSON.
func encodeFacets(f *mcpdir.Facets) []byte {
	b, _ := json.Marshal(f) // maps and slices of strings and ints
	return b
}
