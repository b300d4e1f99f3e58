package mcpdir

import (
	"reflect"
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
	h := NewLiveHistory(prev.History)
	if h.Days != 30 || h.DaysUp != 29 || h.Checks != 30*24 || h.Answered != 30*24-1 || h.MedianLatencyMS != 112 {
		t.Fatalf("%+v", h)
	}
	if h.Summary != "up 29 of 30 days (719 of 720 checks answered), median 112 ms" {
		t.Fatalf("summary %q", h.Summary)
	}
	// Another endpoint starts a history of its own.
	c := &LiveCheck{URL: "https://e.com/other", Status: LiveDown, CheckedAt: prev.CheckedAt.Add(time.Hour)}
	c.Follow(prev)
	if len(c.History) != 1 || NewLiveHistory(c.History).Summary != "up 0 of 1 day (0 of 1 checks answered)" {
		t.Fatalf("a new endpoint: %+v", c.History)
	}
	// It goes through the stores' encoding.
	details, _ := EncodeLiveDetails(prev)
	back, err := DecodeLiveCheck(prev.URL, prev.Status, prev.CheckedAt.UnixNano(), int64(prev.Latency), "", nil, details)
	if err != nil || len(back.History) != HistoryDays || !reflect.DeepEqual(back.History, prev.History) {
		t.Fatalf("decoded: %v %d", err, len(back.History))
	}
}
