package search

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// hosted is an entry with a remote endpoint, checked with status (""
// for never checked).
func hosted(name, status string) *mcpdir.Entry {
	e := entry(name, "A hosted weather forecast server", 10)
	url := "https://" + name + ".example.com/mcp"
	e.Remotes = []mcpdir.Remote{{URL: url, Transport: mcpdir.TransportStreamableHTTP}}
	if status != "" {
		e.Live = &mcpdir.LiveCheck{URL: url, Status: status, CheckedAt: time.Now()}
	}
	return e
}

func liveNames(hits []mcpdir.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Entry.Name)
	}
	return out
}

func TestLiveUpFilter(t *testing.T) {
	x := New()
	stale := hosted("stale", mcpdir.LiveUp)
	stale.Live.URL = "https://old.example.com/mcp" // a check of an endpoint the entry no longer lists
	x.Upsert(hosted("up-one", mcpdir.LiveUp), hosted("up-two", mcpdir.LiveUp), hosted("auth", mcpdir.LiveAuthRequired),
		hosted("down", mcpdir.LiveDown), hosted("unchecked", ""), stale)
	res := x.Find(mcpdir.Query{Text: "weather", Filter: mcpdir.Filter{Live: mcpdir.LiveUp}})
	if got := fmt.Sprint(liveNames(res.Hits)); res.Total != 2 || got != "[up-one up-two]" && got != "[up-two up-one]" {
		t.Fatalf("live=up: %s (total %d), want up-one and up-two", got, res.Total)
	}
	if res := x.Find(mcpdir.Query{Text: "weather"}); res.Total != 6 {
		t.Fatalf("no filter: %d hits, want all 6 (nothing is hidden for being down)", res.Total)
	}
	// A new check reaches the index with the entry.
	x.Upsert(hosted("down", mcpdir.LiveUp))
	if res := x.Find(mcpdir.Query{Text: "weather", Filter: mcpdir.Filter{Live: mcpdir.LiveUp}}); res.Total != 3 {
		t.Fatalf("after down came up: %v", liveNames(res.Hits))
	}
}

// A down entry ranks below an otherwise equal one, whatever the order of
// names or insertion; an up one above, and one that needs sign-in or was
// never checked between, alike (issue 34).
func TestDownRanksBelowAnEqual(t *testing.T) {
	for _, order := range [][]string{{"alpha", "beta"}, {"beta", "alpha"}} {
		x := New()
		x.Upsert(hosted(order[0], mcpdir.LiveDown), hosted(order[1], ""))
		hits := x.Find(mcpdir.Query{Text: "weather forecast"}).Hits
		if len(hits) != 2 || hits[0].Entry.Name != order[1] || !(hits[0].Score > hits[1].Score) {
			t.Errorf("down %s, unchecked %s: ranked %v", order[0], order[1], liveNames(hits))
		}
	}
	for _, order := range [][]string{{"alpha", "beta", "gamma", "delta"}, {"delta", "gamma", "beta", "alpha"}} {
		x := New()
		x.Upsert(hosted(order[0], mcpdir.LiveDown), hosted(order[1], mcpdir.LiveAuthRequired), hosted(order[2], ""), hosted(order[3], mcpdir.LiveUp))
		hits := x.Find(mcpdir.Query{Text: "weather forecast"}).Hits
		if len(hits) != 4 || hits[0].Entry.Name != order[3] || hits[3].Entry.Name != order[0] ||
			!(hits[0].Score > hits[1].Score) || hits[1].Score != hits[2].Score || !(hits[2].Score > hits[3].Score) {
			t.Errorf("up %s, auth_required %s and unchecked %s, down %s: ranked %v", order[3], order[1], order[2], order[0], liveNames(hits))
		}
	}
}

// An entry whose tools raised a warning ranks below an otherwise equal
// one, and one with a high-severity warning lower still (issue 34).
func TestWarnedRanksBelowAnEqual(t *testing.T) {
	for _, order := range [][]string{{"alpha", "beta", "gamma"}, {"gamma", "beta", "alpha"}} {
		x := New()
		low, high := hosted(order[1], ""), hosted(order[2], "")
		low.ToolWarnings = []mcpdir.ToolWarning{{Kind: mcpdir.WarnOverlongDescription, Severity: mcpdir.SeverityLow, Tool: "forecast"}}
		high.ToolWarnings = []mcpdir.ToolWarning{{Kind: mcpdir.WarnHiddenInstruction, Severity: mcpdir.SeverityHigh, Tool: "forecast"}}
		x.Upsert(high, low, hosted(order[0], ""))
		hits := x.Find(mcpdir.Query{Text: "weather forecast"}).Hits
		if got := fmt.Sprint(liveNames(hits)); got != fmt.Sprint(order) || !(hits[0].Score > hits[1].Score && hits[1].Score > hits[2].Score) {
			t.Errorf("clean %s, low warning %s, high warning %s: ranked %s", order[0], order[1], order[2], got)
		}
	}
}
