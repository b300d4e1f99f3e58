package search

import (
	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/gencache"
)

// DefaultResultCache is how many searches' results an index keeps (of up
// to 50 hits; a search for more counts as one per 50).
const DefaultResultCache = 4096

// A result cache keeps the answers of recent searches (hits, total and,
// when counted, facets) by text, limit and filter, for one generation of
// the index: any change to the index empties it, so a cached answer is
// exactly what the search would answer. Queries repeat (people and agents
// ask the same few things), and a search that reads thousands of postings
// costs a hundred times a lookup. Solr's queryResultCache is the same idea.
// 50 hits and their facets are about 2 KB: the default keeps at most about
// 8 MB, whatever the limits searches ask for. A cached result's slices and
// maps are shared by every search it answers, and read only.

// SetResultCache sets how many searches' results the index keeps: 0 keeps
// none, and every search is searched.
func (x *Index) SetResultCache(size int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.results = newResultCache(size)
}

func newResultCache(size int) *gencache.Cache[mcpdir.SearchResult] {
	return gencache.New(size, func(res mcpdir.SearchResult) int { return 1 + len(res.Hits)/(defaultLimit+1) })
}

// ResultLookups returns how many searches were answered from the results
// kept, and how many were searched.
func (x *Index) ResultLookups() (hits, misses uint64) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.results.Lookups()
}
