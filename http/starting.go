package http

import (
	"net/http"
	"sync/atomic"

	"github.com/mcpdir/mcpdir"
)

// Starting answers while the service opens its store and builds its
// index, on a port it listens on from the first moment: /healthz 200
// (alive), /readyz 503 with status "starting" (a balancer passes the
// replica by), anything else 503 with Retry-After (a client tries again).
func Starting() http.Handler {
	const msg = "starting: opening the store and building the index"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		case "/readyz":
			writeJSON(w, http.StatusServiceUnavailable, readyBody{Status: "starting", Error: &errorDetail{Code: mcpdir.ECodeUnavailable, Message: msg}})
		default:
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusServiceUnavailable, errorBody{Error: errorDetail{Code: mcpdir.ECodeUnavailable, Message: msg}})
		}
	})
}

// Switch is a handler whose target is set once the service is open: it
// starts as Starting.
type Switch struct{ h atomic.Pointer[http.Handler] }

// NewSwitch returns a switch that answers as Starting.
func NewSwitch() *Switch {
	s := &Switch{}
	s.Set(Starting())
	return s
}

// Set makes h answer every request from now on.
func (s *Switch) Set(h http.Handler) { s.h.Store(&h) }

func (s *Switch) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }
