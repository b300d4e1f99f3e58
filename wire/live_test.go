package wire

import (
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// The detail view: sign-in's servers a list even when none were named.
func TestLiveDetailAuth(t *testing.T) {
	d := newLiveDetail(&mcpdir.LiveCheck{Status: mcpdir.LiveAuthRequired, Auth: &mcpdir.LiveAuth{}})
	if d.Auth == nil || d.Auth.AuthorizationServers == nil || d.ProtocolVersions != nil {
		t.Fatalf("%+v", d)
	}
}

// The summary says on how many days every check was answered, and the
// median latency.
func TestLiveHistory(t *testing.T) {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var prev *mcpdir.LiveCheck
	for day := range 40 {
		for hour := range 24 {
			c := &mcpdir.LiveCheck{URL: "https://e.com/mcp", Status: mcpdir.LiveUp, CheckedAt: start.Add(time.Duration(day*24+hour) * time.Hour),
				Latency: time.Duration(100+hour) * time.Millisecond}
			if day == 35 && hour == 3 {
				c.Status = mcpdir.LiveDown
			}
			if day == 36 && hour == 4 {
				c.Status = mcpdir.LiveAuthRequired
			}
			c.Follow(prev)
			prev = c
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
	c := &mcpdir.LiveCheck{URL: "https://e.com/other", Status: mcpdir.LiveDown, CheckedAt: prev.CheckedAt.Add(time.Hour)}
	c.Follow(prev)
	if NewLiveHistory(c.History).Summary != "up 0 of 1 day (0 of 1 checks answered)" {
		t.Fatalf("a new endpoint: %+v", c.History)
	}
	if NewLiveHistory(nil) != nil {
		t.Fatal("no history summarised")
	}
}
