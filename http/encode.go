package http

import (
	"encoding/json"
	"strconv"

	"github.com/mcpdir/mcpdir"
)

// appendSearchResponse appends the JSON of a search response to dst,
// assembled from the cached encodings of its items.
func appendSearchResponse(dst []byte, items *mcpdir.EncodingCache, res mcpdir.SearchResult, keywords string) []byte {
	dst = append(dst, `{"data":[`...)
	dst = items.AppendJoined(dst, res.Hits, mcpdir.AppendItemScore)
	dst = append(dst, `],"count":`...)
	dst = strconv.AppendInt(dst, int64(len(res.Hits)), 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(res.Total), 10)
	dst = append(dst, `,"keywords":`...)
	kw, _ := json.Marshal(keywords)
	dst = append(dst, kw...)
	dst = append(dst, `,"facets":`...)
	facets, _ := json.Marshal(res.Facets) // maps and slices of strings and ints
	dst = append(dst, facets...)
	return append(dst, '}')
}
