package http

import (
	"encoding/json"
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
	dst = appendJSONString(dst, keywords)
	dst = append(dst, `,"facets":`...)
	dst = append(dst, facets...)
	return append(dst, '}')
}

// appendJSONString appends s as encoding/json writes it: directly when
// nothing in it needs escaping (the common case), else through json.Marshal.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
