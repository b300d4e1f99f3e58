package wire

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpdir/mcpdir"
)

// LiveSummary is what search items carry of an entry's live check.
type LiveSummary struct {
	Status     string    `json:"status"`
	CheckedAt  time.Time `json:"checked_at"`
	LatencyMS  int64     `json:"latency_ms"`
	ToolsCount int       `json:"tools_count"`
	// ToolsChangedAt is when the tool list last changed, if that was in
	// the last ToolsChangedWithin.
	ToolsChangedAt *time.Time `json:"tools_changed_at,omitempty"`
}

// ToolsChangedWithin is how recent a change of a server's tools search
// items mention.
const ToolsChangedWithin = 30 * 24 * time.Hour

// Words is the status as people read it: "Up", "Needs sign-in", "Down".
func (s LiveSummary) Words() string {
	switch s.Status {
	case mcpdir.LiveUp:
		return "Up"
	case mcpdir.LiveAuthRequired:
		return "Needs sign-in"
	}
	return "Down"
}

// LiveDetail is what get_mcp_detail carries: the summary, the protocol
// version agreed and those the server speaks, how it wants clients to sign
// in, the tools it listed, their fingerprint and history.
type LiveDetail struct {
	LiveSummary
	ProtocolVersion  string           `json:"protocol_version,omitempty"`
	ProtocolVersions []string         `json:"protocol_versions,omitempty"`
	Auth             *mcpdir.LiveAuth `json:"auth,omitempty"`
	Tools            []mcpdir.Tool    `json:"tools"`
	// Instructions are what the server tells clients about using it.
	Instructions string `json:"instructions,omitempty"`
	// ToolsFingerprint is the list's (ToolsFingerprint).
	ToolsFingerprint string `json:"tools_fingerprint"`
	// ToolChanges are the list's last changes, newest first, in words too.
	ToolChanges []ToolChangeView `json:"tool_changes"`
	// ToolsWarning says, when tools were redefined after the server was
	// first seen, that they should be read again before they are trusted.
	ToolsWarning string `json:"tools_warning,omitempty"`
	// History is what the last HistoryDays days of checks say.
	History *LiveHistory `json:"history,omitempty"`
}

// ToolChangeView is a change of a tool list, with its words.
type ToolChangeView struct {
	mcpdir.ToolChange
	Words string `json:"words"`
}

func newLiveSummary(c *mcpdir.LiveCheck) *LiveSummary {
	if c == nil {
		return nil
	}
	s := &LiveSummary{Status: c.Status, CheckedAt: c.CheckedAt.UTC().Truncate(time.Second),
		LatencyMS: c.Latency.Milliseconds(), ToolsCount: len(c.Tools)}
	if at := c.ToolsChanged(); !at.IsZero() && time.Since(at) < ToolsChangedWithin {
		at = at.UTC().Truncate(time.Second)
		s.ToolsChangedAt = &at
	}
	return s
}

func newLiveDetail(c *mcpdir.LiveCheck) *LiveDetail {
	if c == nil {
		return nil
	}
	d := &LiveDetail{LiveSummary: *newLiveSummary(c), ProtocolVersion: c.ProtocolVersion, ProtocolVersions: c.ProtocolVersions,
		Tools: nonNil(c.Tools), Instructions: c.Instructions, ToolsFingerprint: mcpdir.ToolsFingerprint(c.Tools),
		ToolChanges: []ToolChangeView{}}
	for _, ch := range c.ToolChanges {
		d.ToolChanges = append(d.ToolChanges, ToolChangeView{ToolChange: ch, Words: ch.Words()})
	}
	d.ToolsWarning = mcpdir.ToolsWarning(c.ToolChanges)
	d.History = NewLiveHistory(c.History)
	if c.Auth != nil {
		a := *c.Auth
		a.AuthorizationServers = nonNil(a.AuthorizationServers)
		d.Auth = &a
	}
	return d
}

// LiveHistory is what the kept checks say: how often the server answered,
// day by day, and how fast.
type LiveHistory struct {
	Days            int            `json:"days"`    // days with a check, of the last HistoryDays
	DaysUp          int            `json:"days_up"` // days every check was answered
	Checks          int            `json:"checks"`
	Answered        int            `json:"answered"`
	MedianLatencyMS int64          `json:"median_latency_ms,omitempty"`
	Summary         string         `json:"summary"` // "up 29 of 30 days, median 120 ms"
	Daily           []LiveDayShort `json:"daily"`   // oldest first
}

// LiveDayShort is a day of the history as the detail gives it.
type LiveDayShort struct {
	Day             string `json:"day"`
	Checks          int    `json:"checks"`
	Answered        int    `json:"answered"`
	MedianLatencyMS int64  `json:"median_latency_ms,omitempty"`
}

// NewLiveHistory summarises a history; nil when there is none.
func NewLiveHistory(h []mcpdir.LiveDay) *LiveHistory {
	if len(h) == 0 {
		return nil
	}
	s := &LiveHistory{Days: len(h), Daily: make([]LiveDayShort, 0, len(h))}
	var all []int64
	for _, d := range h {
		s.Checks += d.Checks
		s.Answered += d.Answered()
		if d.Answered() == d.Checks {
			s.DaysUp++
		}
		all = append(all, d.LatenciesMS...)
		s.Daily = append(s.Daily, LiveDayShort{Day: d.Day, Checks: d.Checks, Answered: d.Answered(), MedianLatencyMS: median(d.LatenciesMS)})
	}
	s.MedianLatencyMS = median(all)
	days := "days"
	if s.Days == 1 {
		days = "day"
	}
	s.Summary = fmt.Sprintf("up %d of %d %s", s.DaysUp, s.Days, days)
	if s.DaysUp < s.Days {
		s.Summary += fmt.Sprintf(" (%d of %d checks answered)", s.Answered, s.Checks)
	}
	if len(all) > 0 {
		s.Summary += fmt.Sprintf(", median %d ms", s.MedianLatencyMS)
	}
	return s
}

// median is the middle of xs (the lower of the two middles), 0 if empty.
func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
