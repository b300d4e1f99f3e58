package mcpdir

import (
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
