package http

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

func sampleResult(n int) mcpdir.SearchResult {
	res := mcpdir.SearchResult{Total: n * 3, Facets: &mcpdir.Facets{
		Transports: map[string]int{"stdio": n, "sse": 1}, Registries: map[string]int{"npm": n},
		Tags: []mcpdir.TagCount{{Tag: "postgres", Count: n}, {Tag: "<db>", Count: 2}},
	}}
	for i := range n {
		e := &mcpdir.Entry{
			ID: mcpdir.EntryID(fmt.Sprint(i)), Name: fmt.Sprintf("@scope/mcp-server-postgres-%d", i),
			Title: "Postgres \"MCP\" <server>", Brief: "Read-only access to PostgreSQL databases: inspect schemas and run queries. ünïcode",
			WebsiteURL: fmt.Sprintf("https://www.npmjs.com/package/@scope/mcp-server-postgres-%d", i),
			Tags:       []string{"postgres", "database", "sql"}, Transports: []string{"stdio"}, Popularity: int64(i * 1000),
			UpdatedAt: time.Unix(int64(i), 0),
		}
		res.Hits = append(res.Hits, mcpdir.Hit{Entry: e, Score: 10.0 / float64(i+1)})
	}
	return res
}

// The cached assembly must produce exactly what encoding/json produces,
// byte for byte.
func TestCachedEncodingMatchesEncodingJSON(t *testing.T) {
	res := sampleResult(50)
	c := wire.NewEncodingCache(wire.EncodeSearchItemHead)
	for round, keywords := range []string{"postgres", `post"gres <&> é \ x`, "postgres"} { // cold and warm cache
		got := appendSearchResponse(nil, c, res, keywords, encodeFacets(res.Facets))
		items := make([]wire.SearchItem, len(res.Hits))
		for i, h := range res.Hits {
			items[i] = wire.NewSearchItem(h)
		}
		want, _ := json.Marshal(searchResponse{Data: items, Count: len(items), Total: res.Total, Keywords: keywords, Facets: res.Facets})
		if string(got) != string(want) {
			t.Fatalf("round %d:\n got %s\nwant %s", round, got, want)
		}
	}
	// An updated entry (a new one, as the index holds) is encoded anew.
	res.Hits[0].Entry = &mcpdir.Entry{ID: res.Hits[0].Entry.ID, Name: "renamed", UpdatedAt: time.Unix(999, 0)}
	var g struct{ Data []wire.SearchItem }
	json.Unmarshal(appendSearchResponse(nil, c, res, "x", encodeFacets(nil)), &g)
	if g.Data[0].Name != "renamed" {
		t.Fatal("stale cached encoding served after an update")
	}
}

// Facets are encoded as encoding/json encodes them, whatever they hold:
// nothing, empty counts, many keys, and tags that need escaping.
func TestFacetsEncodeAsEncodingJSON(t *testing.T) {
	many := map[string]int{}
	for i := range 20 {
		many[fmt.Sprintf("registry-%02d", 19-i)] = i
	}
	for i, f := range []*mcpdir.Facets{
		nil,
		{},
		{Transports: map[string]int{}, Registries: map[string]int{}, Tags: []mcpdir.TagCount{}},
		{Transports: map[string]int{"stdio": 3, "sse": 1, "streamable-http": 2}, Registries: many},
		{Tags: []mcpdir.TagCount{{Tag: "a\"b<c>&d", Count: 1}, {Tag: "\xff\u2028é", Count: 20}, {Tag: "", Count: 0}}},
	} {
		want, _ := json.Marshal(f)
		if got := encodeFacets(f); string(got) != string(want) {
			t.Errorf("facets %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// The cache stays bounded: replaced entries do not pile up.
func TestItemCacheIsBounded(t *testing.T) {
	c := wire.NewEncodingCache(wire.EncodeSearchItemHead)
	for range 1<<16/50 + 10 {
		appendSearchResponse(nil, c, sampleResult(50), "x", encodeFacets(nil)) // 50 new entries each time
	}
	if c.Len() > 1<<16 {
		t.Fatalf("%d cached items, bound %d", c.Len(), 1<<16)
	}
}

// BenchmarkEncodeSearchResponse compares, in one run, encoding a 50-hit
// response with encoding/json and assembling it from cached item encodings.
func BenchmarkEncodeSearchResponse(b *testing.B) {
	res := sampleResult(50)
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			items := make([]wire.SearchItem, len(res.Hits))
			for i, h := range res.Hits {
				items[i] = wire.NewSearchItem(h)
			}
			json.Marshal(searchResponse{Data: items, Count: len(items), Total: res.Total, Keywords: "postgres", Facets: res.Facets})
		}
	})
	b.Run("cached-items", func(b *testing.B) {
		c := wire.NewEncodingCache(wire.EncodeSearchItemHead)
		buf := make([]byte, 0, 32<<10)
		for b.Loop() {
			buf = appendSearchResponse(buf[:0], c, res, "postgres", encodeFacets(res.Facets))
		}
	})
}
