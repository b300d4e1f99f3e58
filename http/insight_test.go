package http

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/insight"
)

// fixedIndex answers every search with the same ten hits.
type fixedIndex struct{ res mcpdir.SearchResult }

func (x fixedIndex) Find(mcpdir.Query) mcpdir.SearchResult { return x.res }
func (fixedIndex) Generation() uint64                      { return 1 }
func (fixedIndex) Get(string) (*mcpdir.Entry, bool)        { return nil, false }

type nopInsights struct{}

func (nopInsights) AddInsights(context.Context, mcpdir.InsightBatch) error { return nil }
func (nopInsights) ReadInsights(context.Context, time.Time, int) (mcpdir.Insights, error) {
	return mcpdir.Insights{}, nil
}
func (nopInsights) PruneInsights(context.Context, time.Time) error { return nil }

// The REST search's cost with the insight counting and without, on an
// index that costs nothing: what the insight adds to a request.
func BenchmarkSearchInsight(b *testing.B) {
	var res mcpdir.SearchResult
	for i := range 10 {
		res.Hits = append(res.Hits, mcpdir.Hit{Entry: &mcpdir.Entry{ID: fmt.Sprint("id-", i), Name: fmt.Sprint("server-", i), Brief: "A server"}, Score: 1})
	}
	res.Total = 10
	for _, c := range []struct {
		name string
		rec  mcpdir.InsightRecorder
	}{{"none", mcpdir.NoInsight}, {"counted", insight.New(nopInsights{}, insight.Options{})}} {
		var guard mcpdir.Guard = allowAll{}
		if r, ok := c.rec.(*insight.Recorder); ok {
			guard = r.Guard(guard)
		}
		h := handleSearch(fixedIndex{res}, guard, 50, c.rec, nil)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				req := httptest.NewRequest("GET", "/api/open/v1/search?keywords=github+issues", nil)
				for pb.Next() {
					h.ServeHTTP(discard{}, req)
				}
			})
		})
	}
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}

// A CSV cell a spreadsheet would take for a formula is made inert.
func TestInsightsCSVIsInert(t *testing.T) {
	body := string(insightsCSV(mcpdir.Insights{TopQueries: []mcpdir.QueryStat{{Query: "=cmd|' /c calc'!a0", Count: 1}, {Query: "-2+3", Count: 1}}}))
	if !strings.Contains(body, `top_queries,,,'=cmd|' /c calc'!a0,`) || !strings.Contains(body, "top_queries,,,'-2+3,") {
		t.Fatalf("%s", body)
	}
}
