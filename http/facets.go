package http

import (
	"encoding/json"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/gencache"
)

// newFacetCache keeps the encoded facets of recent searches, by keywords
// and filter (mcpdir.Query.AppendKey without a limit), for one generation
// of the index. Counting facets walks every match of a query, the dearest
// part of a search with many matches (a tenth of the server's CPU under
// load, in docs/BENCHMARKS.md), while the queries people send repeat: a
// search whose facets are cached asks the index for its hits only. The
// facets are exact: any change to the index empties the cache.
func newFacetCache() *gencache.Cache[[]byte] {
	return gencache.New[[]byte](maxCachedFacets, nil)
}

// maxCachedFacets bounds the cache (facets are a few hundred bytes).
const maxCachedFacets = 4096

// encodeFacets is the facets' JSON.
func encodeFacets(f *mcpdir.Facets) []byte {
	b, _ := json.Marshal(f) // maps and slices of strings and ints
	return b
}
