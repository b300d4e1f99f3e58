package http

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
)

// withBaseline serves GET /debug/baseline?bytes=N ahead of next: a plain
// handler writing a precomputed JSON body of N bytes with a search's
// headers, what a search could at best achieve on this machine (the
// "equal-body limit"). With &observed=1 the request goes on through next,
// the server's middleware (access log, metrics, request id, deadlines),
// to the same handler: what that middleware costs.
func withBaseline(next http.Handler) http.Handler {
	baseline := handleBaseline()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/baseline" || r.Method != http.MethodGet || r.URL.Query().Get("observed") != "" {
			next.ServeHTTP(w, r)
			return
		}
		baseline.ServeHTTP(w, r)
	})
}

// handleBaseline answers a precomputed body of the requested size.
func handleBaseline() http.Handler {
	var bodies sync.Map // size -> []byte
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("bytes"))
		if err != nil || n < 16 || n > MaxBodyBytes {
			n = 12 << 10
		}
		body, ok := bodies.Load(n)
		if !ok {
			body, _ = bodies.LoadOrStore(n, append(append([]byte(`{"data":"`), bytes.Repeat([]byte("x"), n-11)...), '"', '}'))
		}
		writeBody(w, http.StatusOK, body.([]byte))
	})
}
