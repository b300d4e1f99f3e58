package http

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpdir/mcpdir"
)

// handleHealthz says the process is alive.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// Readiness is what /readyz reports.
type Readiness struct {
	// Ready is false while the replica cannot serve searches at all
	// (starting, shutting down): 503, and load balancers pass it by.
	Ready bool
	// Checks names each part and its state: "ok", or what is wrong in
	// words that reveal no internals (details go to the log). A part
	// that is down but does not stop searches (the database, Redis)
	// makes the replica "degraded", still ready: every replica shares
	// those, and taking them all out of the balancer would turn a
	// degraded service into none.
	Checks map[string]string
}

type readyBody struct {
	Status string            `json:"status"` // ready, degraded or not_ready
	Checks map[string]string `json:"checks,omitempty"`
	Error  *errorDetail      `json:"error,omitempty"`
}

// handleReadyz says whether the replica is ready to serve, and how each
// part it depends on is doing.
func handleReadyz(ready func(context.Context) Readiness) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		res := Readiness{Ready: true}
		if ready != nil {
			res = ready(ctx)
		}
		body := readyBody{Status: "ready", Checks: res.Checks}
		for _, state := range res.Checks {
			if state != "ok" {
				body.Status = "degraded"
			}
		}
		if !res.Ready {
			body.Status = "not_ready"
			body.Error = &errorDetail{Code: mcpdir.ECodeUnavailable, Message: "not ready to serve"}
			writeJSON(w, http.StatusServiceUnavailable, body)
			return
		}
		writeJSON(w, http.StatusOK, body)
	})
}
