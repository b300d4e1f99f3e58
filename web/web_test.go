package web

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/starter"
)

// BenchmarkRenderSearch is the server's time to render a results page
// (search included) over the starter directory: the goal is ≤ 2 ms at p50.
func BenchmarkRenderSearch(b *testing.B) {
	idx := search.New()
	entries, err := starter.Entries()
	if err != nil {
		b.Fatal(err)
	}
	idx.Upsert(entries...)
	p, err := New(idx, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	h := p.Search()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/?q=database", nil))
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
		io.Discard.Write(w.Body.Bytes())
	}
}
