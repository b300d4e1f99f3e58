package wire

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpdir/mcpdir"
)

// SetRateLimitHeaders writes the IETF RateLimit header fields (and
// Retry-After when the request was refused) for a counted request. Unlimited
// keys get none: there is no budget to report.
func SetRateLimitHeaders(h http.Header, d mcpdir.RateDecision) {
	if d.Limit == mcpdir.Unlimited {
		return
	}
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(d.Reset)))
	if !d.Allowed {
		h.Set("Retry-After", strconv.Itoa(mcpdir.RetryAfterSeconds(d)))
	}
}

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}
