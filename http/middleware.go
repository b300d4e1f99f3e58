package http

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// recoverPanics turns a panic in a handler into a logged 500 that leaks nothing.
func recoverPanics(logger *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				err := fmt.Errorf("panic: %v\n%s", v, debug.Stack())
				writeError(w, r, logger, err)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// boundRequest refuses over-long URLs and over-large bodies before any
// handler reads them. The MCP endpoint bounds its own bodies, to answer in
// JSON-RPC.
func boundRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.RequestURI) > MaxURLBytes {
			writeError(w, r, nil, mcpdir.Errorf(mcpdir.ECodeURITooLong, "the request URL is longer than %d bytes", MaxURLBytes))
			return
		}
		if r.URL.Path == mcpPath || strings.HasPrefix(r.URL.Path, mcpPath+"/") {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > MaxBodyBytes {
			writeError(w, r, nil, mcpdir.Errorf(mcpdir.ECodeTooLarge, "the request body is larger than %d bytes", MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// deadlines gives each request its time to send its body and take its
// answer: a slow client is cut off rather than holding a connection and a
// goroutine. The server has no ReadTimeout or WriteTimeout of its own,
// which would also end event streams; those lift these deadlines.
func deadlines(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		at := time.Now().Add(d)
		// Best effort: a writer without deadlines (a test recorder) has none.
		_ = rc.SetReadDeadline(at)
		_ = rc.SetWriteDeadline(at)
		next.ServeHTTP(w, r)
	})
}
