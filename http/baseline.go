package http

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
)

// handleBaseline answers a precomputed JSON body of the requested size with
// the same headers as a search, doing no other work: what a search could at
// best achieve on this machine.
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
