package mcpdir

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
