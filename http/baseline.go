package http

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
)

// withBaseline serves GET /debug/baseline ahead of next, which the
// benchmarks never reach for it: a plain handler writing a precomputed
// JSON body of the requested size with a search's headers, what a search
// could at best achieve on this machine (the "equal-body limit").
func withBaseline(next http.Handler) http.Handler {
	var bodies sync.Map // size -> []byte
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/baseline" || r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
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
