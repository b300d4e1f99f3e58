package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
)

// A checked server's page draws its last days of checks as an SVG, with
// the summary as its text alternative; an unchecked one draws none.
func TestServerPageUptimeChart(t *testing.T) {
	var live *mcpdir.LiveCheck
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10 * 4 {
		c := &mcpdir.LiveCheck{URL: "https://e.com/mcp", Status: mcpdir.LiveUp, CheckedAt: start.Add(time.Duration(i) * 6 * time.Hour),
			Latency: time.Duration(80+i) * time.Millisecond}
		if i/4 == 6 {
			c.Status = mcpdir.LiveDown
		}
		c.Follow(live)
		live = c
	}
	e := &mcpdir.Entry{Name: "io.example/checked", Brief: "Checked", Remotes: []mcpdir.Remote{{URL: "https://e.com/mcp", Transport: mcpdir.TransportStreamableHTTP}}, Live: live}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	plain := &mcpdir.Entry{Name: "io.example/plain", Brief: "Never checked"}
	plain.ID = mcpdir.EntryID(plain.NaturalKey())
	idx := search.New()
	idx.Upsert(e, plain)
	p, err := New(idx, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	get := func(id string) string {
		w := httptest.NewRecorder()
		mux := http.NewServeMux()
		mux.Handle("GET /servers/{id}", p.Server())
		mux.ServeHTTP(w, httptest.NewRequest("GET", "/servers/"+id, nil))
		return w.Body.String()
	}
	body := get(e.ID)
	summary := "up 9 of 10 days (36 of 40 checks answered), median 97 ms"
	for _, want := range []string{"<svg", `role="img"`, "Live checks of the last 30 days: " + summary, "Last 30 days: " + summary,
		`class="day-down"`, `class="day-up"`, "2026-11-07: 0 of 4 checks answered", "<polyline"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(body, "<rect") != 10 {
		t.Errorf("%d bars, want 10", strings.Count(body, "<rect"))
	}
	if strings.Contains(get(plain.ID), "<svg") {
		t.Error("an unchecked server's page draws a chart")
	}
}
