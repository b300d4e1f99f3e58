package http

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpdir/mcpdir"
)

// itemCache keeps each entry's search-item JSON, encoded once, so that a
// search response is assembled by copying bytes rather than re-encoding 50
// records per request (see BenchmarkEncodeSearchResponse).
//
// It is keyed by the entry pointer: an indexed entry is never modified (an
// update indexes a new one), so a pointer's encoding never goes stale. A
// response takes the read lock once for all its hits, since per-hit lookups
// in a concurrent map cost a fifth of the server's CPU under load.
type itemCache struct {
	mu    sync.RWMutex
	heads map[*mcpdir.Entry][]byte
}

// maxCachedItems bounds the cache (about 300 bytes an item); when it is
// full it starts afresh, which also lets go of replaced entries.
const maxCachedItems = 1 << 16

var scoreTail = []byte(`0}`)

// encodeHead is an item's JSON up to and including `"score":`; the score,
// which depends on the query, and the closing brace are appended per hit.
func encodeHead(e *mcpdir.Entry) []byte {
	b, err := json.Marshal(mcpdir.NewSearchItem(mcpdir.Hit{Entry: e})) // score 0: the last field
	if err != nil || !bytes.HasSuffix(b, scoreTail) {
		panic("search item encoding does not end with its score") // a change to SearchItem broke this
	}
	return b[:len(b)-len(scoreTail)]
}

// appendSearchResponse appends the JSON of a search response to dst.
func (c *itemCache) appendSearchResponse(dst []byte, res mcpdir.SearchResult, keywords string) []byte {
	var missing []*mcpdir.Entry
	c.mu.RLock()
	for _, h := range res.Hits {
		if _, ok := c.heads[h.Entry]; !ok {
			missing = append(missing, h.Entry)
		}
	}
	c.mu.RUnlock()
	if len(missing) > 0 {
		encoded := make([][]byte, len(missing))
		for i, e := range missing {
			encoded[i] = encodeHead(e)
		}
		c.mu.Lock()
		if c.heads == nil || len(c.heads)+len(missing) > maxCachedItems {
			c.heads = make(map[*mcpdir.Entry][]byte, len(missing))
		}
		for i, e := range missing {
			c.heads[e] = encoded[i]
		}
		c.mu.Unlock()
	}

	dst = append(dst, `{"data":[`...)
	c.mu.RLock()
	for i, h := range res.Hits {
		if i > 0 {
			dst = append(dst, ',')
		}
		head, ok := c.heads[h.Entry]
		if !ok { // dropped by a concurrent reset
			head = encodeHead(h.Entry)
		}
		dst = append(dst, head...)
		dst = strconv.AppendFloat(dst, mcpdir.RoundScore(h.Score), 'f', -1, 64)
		dst = append(dst, '}')
	}
	c.mu.RUnlock()
	dst = append(dst, `],"count":`...)
	dst = strconv.AppendInt(dst, int64(len(res.Hits)), 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(res.Total), 10)
	dst = append(dst, `,"keywords":`...)
	kw, _ := json.Marshal(keywords)
	dst = append(dst, kw...)
	return append(dst, '}')
}
