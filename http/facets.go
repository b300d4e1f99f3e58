package http

import (
	"slices"
	"strconv"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/gencache"
	"github.com/mcpdir/mcpdir/wire"
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

// encodeFacets is the facets' JSON, byte for byte what encoding/json
// writes (map keys sorted, nil maps and slices null), without its
// reflection: a new query's facets are encoded once each, and through
// json.Marshal that was a fifth of the encoding of its answer.
func encodeFacets(f *mcpdir.Facets) []byte {
	if f == nil {
		return []byte("null")
	}
	dst := make([]byte, 0, 64+32*len(f.Tags))
	dst = append(dst, `{"transports":`...)
	dst = appendCounts(dst, f.Transports)
	dst = append(dst, `,"registries":`...)
	dst = appendCounts(dst, f.Registries)
	dst = append(dst, `,"tags":`...)
	if f.Tags == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, t := range f.Tags {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"tag":`...)
			dst = wire.AppendJSONString(dst, t.Tag, wire.AsMarshal)
			dst = append(dst, `,"count":`...)
			dst = strconv.AppendInt(dst, int64(t.Count), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendCounts appends a map of counts as a JSON object, its keys sorted.
func appendCounts(dst []byte, m map[string]int) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	var keyBuf [8]string // transports and registries: a handful each
	keys := keyBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendJSONString(dst, k, wire.AsMarshal)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(m[k]), 10)
	}
	return append(dst, '}')
}
