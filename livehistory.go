package mcpdir

import (
	"fmt"
	"slices"
	"time"
)

// HistoryDays is how many days of an endpoint's live checks are kept, a
// day at a time.
const HistoryDays = 30

// maxDayLatencies bounds the latencies a day keeps for its median: past
// it, every other one is dropped (the day's spread is kept, the store's row
// stays small whatever --check-every is).
const maxDayLatencies = 96

// LiveDay is one UTC day of an endpoint's live checks.
type LiveDay struct {
	Day    string `json:"day"` // 2006-01-02
	Checks int    `json:"checks"`
	Up     int    `json:"up"`
	Auth   int    `json:"auth_required"`
	Down   int    `json:"down"`
	// LatenciesMS are the answered checks' latencies (thinned past
	// maxDayLatencies).
	LatenciesMS []int64 `json:"latencies_ms,omitempty"`
}

// Answered is how many of the day's checks the server answered (up, or
// asking to sign in: it is there).
func (d LiveDay) Answered() int { return d.Up + d.Auth }

// record adds check c to the history h of its endpoint (oldest day first),
// keeping the last HistoryDays days.
func record(h []LiveDay, c *LiveCheck) []LiveDay {
	at := c.CheckedAt.UTC()
	day := at.Format(time.DateOnly)
	if n := len(h); n == 0 || h[n-1].Day != day {
		h = append(h, LiveDay{Day: day})
	}
	d := &h[len(h)-1]
	d.Checks++
	switch c.Status {
	case LiveUp:
		d.Up++
	case LiveAuthRequired:
		d.Auth++
	default:
		d.Down++
	}
	if c.Status != LiveDown {
		if len(d.LatenciesMS) >= maxDayLatencies {
			kept := d.LatenciesMS[:0]
			for i, l := range d.LatenciesMS {
				if i%2 == 0 {
					kept = append(kept, l)
				}
			}
			d.LatenciesMS = kept
		}
		d.LatenciesMS = append(d.LatenciesMS, c.Latency.Milliseconds())
	}
	oldest := at.AddDate(0, 0, -(HistoryDays - 1)).Format(time.DateOnly)
	i := 0
	for i < len(h) && h[i].Day < oldest {
		i++
	}
	return h[i:]
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
func NewLiveHistory(h []LiveDay) *LiveHistory {
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
