package http

import (
	"crypto/rand"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Observer counts requests (package metrics).
type Observer interface {
	// Route returns what counts the requests of one route (a pattern of
	// the mux, or "unmatched"); it is asked once per route.
	Route(route string) func(method string, status int, d time.Duration)
}

// observe answers the request's id in X-Request-Id, and after the request
// tells the observer (if any) and writes the access line (if logging):
// route, status, bytes, duration, the key's prefix (never the key, nor the
// query). A well-formed id from the client (or the proxy in front) is
// kept, so that one request can be followed across systems; otherwise the
// server makes one.
func observe(logger *slog.Logger, accessLog bool, observer Observer, clientIP func(*http.Request) string, next http.Handler) http.Handler {
	ids := newRequestIDs()
	routes := newrouteObservers(observer)
	var handler slog.Handler
	if accessLog {
		handler = logger.Handler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = ids.next()
		}
		w.Header().Set("X-Request-Id", id)
		info := &mcpdir.RequestInfo{ID: id, ClientAddr: clientIP(r)}
		r = r.WithContext(mcpdir.WithRequestInfo(r.Context(), info))
		rec := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		if observer != nil {
			routes.get(route)(r.Method, rec.statusOrOK(), time.Since(start))
		}
		if !accessLog || !handler.Enabled(r.Context(), slog.LevelInfo) {
			return
		}
		// The record is made here rather than by logger.LogAttrs, which
		// looks up its caller's program counter for a source no handler
		// of ours writes: a tenth of the access line's cost.
		line := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
		line.AddAttrs(slog.String("id", id), slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", rec.statusOrOK()), slog.Int64("bytes", rec.bytes),
			slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("key", info.KeyPrefix), slog.String("remote", r.RemoteAddr))
		_ = handler.Handle(r.Context(), line) // a line that cannot be written is not the request's failure
	})
}

type routeObserver = func(method string, status int, d time.Duration)

// routeObservers keeps each route's observer, asked of the Observer the
// first time the route answers. The routes are the mux's patterns, a fixed
// set, so the table is copied on the rare write and read without a lock.
type routeObservers struct {
	observer Observer
	mu       sync.Mutex // serializes writers
	table    atomic.Pointer[map[string]routeObserver]
}

func newrouteObservers(o Observer) *routeObservers {
	r := &routeObservers{observer: o}
	r.table.Store(&map[string]routeObserver{})
	return r
}

func (r *routeObservers) get(route string) routeObserver {
	if o, ok := (*r.table.Load())[route]; ok {
		return o
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.table.Load()
	if o, ok := old[route]; ok {
		return o
	}
	o := r.observer.Route(route)
	table := make(map[string]routeObserver, len(old)+1)
	maps.Copy(table, old)
	table[route] = o
	r.table.Store(&table)
	return o
}

// validRequestID accepts up to 64 characters of [A-Za-z0-9._-]: nothing
// that could forge a log line or a header.
func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// requestIDs makes ids unique across replicas and restarts (a random
// process part) and cheap per request (a counter).
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs { return &requestIDs{prefix: rand.Text()[:10] + "-"} }

func (g *requestIDs) next() string { return g.prefix + strconv.FormatUint(g.n.Add(1), 36) }

// recordingWriter notes the status and size of a response. It passes
// flushes on and unwraps for http.ResponseController, which event streams
// rely on.
type recordingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recordingWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *recordingWriter) statusOrOK() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
