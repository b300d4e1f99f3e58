package web

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/starter"
)

// A result shows a record's title where it has one, its name beside
// (issue 34): "Gmail", not only io.github.gongrzhe/gmail-mcp-server.
func TestResultsShowTitles(t *testing.T) {
	idx := search.New()
	entries, err := starter.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		e.ID = mcpdir.EntryID(e.NaturalKey())
	}
	idx.Upsert(entries...)
	p, err := New(idx, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	p.Search().ServeHTTP(w, httptest.NewRequest("GET", "/?q=gmail", nil))
	body, _ := io.ReadAll(w.Body)
	page := string(body)
	if !strings.Contains(page, `">Gmail</a> <code class="package">io.github.gongrzhe/gmail-mcp-server</code>`) {
		i := strings.Index(page, "results")
		t.Errorf("no title with the name beside: %s", page[max(i, 0):min(len(page), max(i, 0)+600)])
	}
	// Its page's heading and tab read "Gmail" too.
	i := strings.Index(page, `href="/servers/`)
	if i < 0 {
		t.Fatal("no link to the server's page")
	}
	href := page[i+len(`href="`):]
	href = href[:strings.IndexByte(href, '"')]
	mux := http.NewServeMux()
	mux.Handle("GET /servers/{id}", p.Server())
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest("GET", href, nil))
	body, _ = io.ReadAll(w.Body)
	for _, want := range []string{"<title>Gmail · Open MCP Directory</title>", "<h1>Gmail</h1>"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("%s: no %s", href, want)
		}
	}
}
