package http

import (
	"strconv"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// appendSearchResponse appends the JSON of a search response to dst,
// assembled from the cached encodings of its items and its encoded facets.
func appendSearchResponse(dst []byte, items *wire.EncodingCache, res mcpdir.SearchResult, keywords string, facets []byte) []byte {
	dst = append(dst, `{"data":[`...)
	dst = items.AppendJoined(dst, res.Hits, wire.AppendItemScore)
	dst = append(dst, `],"count":`...)
	dst = strconv.AppendInt(dst, int64(len(res.Hits)), 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(res.Total), 10)
	dst = append(dst, `,"keywords":`...)
	dst = wire.AppendJSONString(dst, keywords, wire.AsMarshal)
	dst = append(dst, `,"facets":`...)
	dst = append(dst, facets...)
	return append(dst, '}')
}
