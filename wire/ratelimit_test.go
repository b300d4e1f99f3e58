package wire

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

func TestRateLimitHeaders(t *testing.T) {
	h := http.Header{}
	SetRateLimitHeaders(h, mcpdir.RateDecision{Limit: 20, Remaining: 0, Reset: 1500 * time.Millisecond, RetryAfter: 200 * time.Millisecond})
	want := map[string]string{"RateLimit-Limit": "20", "RateLimit-Remaining": "0", "RateLimit-Reset": "2", "Retry-After": "1"}
	for k, v := range want {
		if h.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, h.Get(k), v)
		}
	}
	h = http.Header{}
	SetRateLimitHeaders(h, mcpdir.RateDecision{Allowed: true, Limit: mcpdir.Unlimited})
	if len(h) != 0 {
		t.Errorf("unlimited key got headers %v", h)
	}
}
