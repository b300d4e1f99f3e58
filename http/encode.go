package http

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
)

// itemCache keeps each entry's search-item JSON, encoded once, so that a
// search response is assembled by copying bytes rather than re-encoding 50
// records per request (see BenchmarkEncodeSearchResponse). An entry is
// re-encoded when its UpdatedAt changes.
type itemCache struct {
	m sync.Map // entry id -> *encodedItem
}

type encodedItem struct {
	updated time.Time
	// head is the item's JSON up to and including `"score":`; the score,
	// which depends on the query, and the closing brace are appended per hit.
	head []byte
}

var scoreTail = []byte(`0}`)

func (c *itemCache) head(h mcpdir.Hit) []byte {
	e := h.Entry
	if v, ok := c.m.Load(e.ID); ok {
		if it := v.(*encodedItem); it.updated.Equal(e.UpdatedAt) {
			return it.head
		}
	}
	item := mcpdir.NewSearchItem(mcpdir.Hit{Entry: e}) // score 0: the last field
	b, err := json.Marshal(item)
	if err != nil || !bytes.HasSuffix(b, scoreTail) {
		panic("search item encoding does not end with its score") // a change to SearchItem broke this
	}
	head := b[:len(b)-len(scoreTail)]
	c.m.Store(e.ID, &encodedItem{updated: e.UpdatedAt, head: head})
	return head
}

// appendSearchResponse appends the JSON of a search response to dst.
func (c *itemCache) appendSearchResponse(dst []byte, res mcpdir.SearchResult, keywords string) []byte {
	dst = append(dst, `{"data":[`...)
	for i, h := range res.Hits {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c.head(h)...)
		dst = strconv.AppendFloat(dst, mcpdir.NewSearchItem(h).Score, 'f', -1, 64)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"count":`...)
	dst = strconv.AppendInt(dst, int64(len(res.Hits)), 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(res.Total), 10)
	dst = append(dst, `,"keywords":`...)
	kw, _ := json.Marshal(keywords)
	dst = append(dst, kw...)
	return append(dst, '}')
}
