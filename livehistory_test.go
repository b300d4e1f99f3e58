package mcpdir

import (
	"testing"
	"time"
)

// Checks are kept a day at a time for HistoryDays days; the summary says
// on how many days every check was answered, and the median latency.
func TestLiveHistory(t *testing.T) {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var prev *LiveCheck
	for day := range 40 {
		for hour := range 24 {
			c := &LiveCheck{URL: "https://e.com/mcp", Status: LiveUp, CheckedAt: start.Add(time.Duration(day*24+hour) * time.Hour),
				Latency: time.Duration(100+hour) * time.Millisecond}
			if day == 35 && hour == 3 {
				c.Status = LiveDown
			}
			if day == 36 && hour == 4 {
				c.Status = LiveAuthRequired
			}
			c.Follow(prev)
			prev = c
		}
	}
	if len(prev.History) != HistoryDays || prev.History[len(prev.History)-1].Day != "2026-11-09" {
		t.Fatalf("%d days kept, the last %+v", len(prev.History), prev.History[len(prev.History)-1])
	}
	for _, d := range prev.History {
		if len(d.LatenciesMS) > maxDayLatencies {
			t.Fatalf("a day keeps %d latencies", len(d.LatenciesMS))
		}
	}
	// Another endpoint starts a history of its own.
	c := &LiveCheck{URL: "https://e.com/other", Status: LiveDown, CheckedAt: prev.CheckedAt.Add(time.Hour)}
	c.Follow(prev)
	if len(c.History) != 1 || c.History[0].Checks != 1 || c.History[0].Answered() != 0 {
		t.Fatalf("a new endpoint: %+v", c.History)
	}
}
