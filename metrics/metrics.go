// Package metrics exposes the service's Prometheus metrics, with
// prometheus/client_golang: HTTP requests, search latency, the index, rate
// limiting, MCP traffic and streams, the change feed, registry syncs, live
// checks, and the Go runtime and process.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpdir/mcpdir"
)

// Metrics holds the collectors, registered in a registry of their own.
type Metrics struct {
	registry *prometheus.Registry

	requests     *prometheus.CounterVec
	durations    *prometheus.HistogramVec
	searches     prometheus.Histogram
	rateLimited  prometheus.Counter
	mcpMessages  *prometheus.CounterVec
	streams      prometheus.Gauge
	feedCaughtUp prometheus.Gauge
	syncs        *prometheus.CounterVec
	liveChecks   *prometheus.CounterVec
	toolChanges  *prometheus.CounterVec
	liveDuration prometheus.Histogram

	oauthRegistrations  prometheus.Counter
	oauthAuthorizations *prometheus.CounterVec
	oauthTokens         *prometheus.CounterVec
	oauthRefusals       *prometheus.CounterVec
}

// New registers the collectors. entries reports the index's size, and
// droppedLogLines the log lines dropped because the log output fell behind.
func New(entries func() int, droppedLogLines func() uint64) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_http_requests_total", Help: "HTTP requests answered, by route and status.",
		}, []string{"route", "method", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mcpdir_http_request_duration_seconds", Help: "Time to answer an HTTP request (event streams: their lifetime), by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5, 30, 300},
		}, []string{"route"}),
		searches: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "mcpdir_search_duration_seconds", Help: "Time the index takes to answer a search (REST and MCP).",
			Buckets: []float64{.00001, .000025, .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .1},
		}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mcpdir_rate_limited_total", Help: "Requests refused because the key's budget was spent.",
		}),
		mcpMessages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_mcp_messages_total", Help: "JSON-RPC messages received on the MCP endpoint, by method and tool (for tools/call).",
		}, []string{"method", "tool"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcpdir_mcp_open_streams", Help: "MCP event streams open now.",
		}),
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_registry_syncs_total", Help: "Registry syncs run by this replica, by result (ok, failed).",
		}, []string{"result"}),
		liveChecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_live_checks_total", Help: "Live checks of remote MCP endpoints run by this replica, by status (up, auth_required, down).",
		}, []string{"status"}),
		toolChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_tool_changes_total", Help: "Changes of a server's tool list found by this replica's live checks, by kind (redefined: a tool there before now says or takes something else; listed: tools only added or removed).",
		}, []string{"kind"}),
		liveDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "mcpdir_live_check_duration_seconds", Help: "Time a live check of a remote MCP endpoint took, connection to the end of tools/list.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		feedCaughtUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcpdir_changefeed_caught_up_timestamp_seconds", Help: "When this replica last read the change feed to its end (Unix time): now minus this is how far behind it may be.",
		}),
		oauthRegistrations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mcpdir_oauth_registrations_total", Help: "OAuth clients registered (dynamic client registration).",
		}),
		oauthAuthorizations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_oauth_authorizations_total", Help: "Answers on the OAuth consent page, by decision (allowed, denied).",
		}, []string{"decision"}),
		oauthTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_oauth_token_grants_total", Help: "OAuth tokens issued, by grant type (authorization_code, refresh_token).",
		}, []string{"grant_type"}),
		oauthRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpdir_oauth_refusals_total", Help: "OAuth requests refused, by reason (the OAuth error code).",
		}, []string{"reason"}),
	}
	for _, s := range mcpdir.LiveStatuses {
		m.liveChecks.WithLabelValues(s)
	}
	m.toolChanges.WithLabelValues("redefined")
	m.toolChanges.WithLabelValues("listed")
	m.registry.MustRegister(m.oauthRegistrations, m.oauthAuthorizations, m.oauthTokens, m.oauthRefusals, m.syncs, m.liveChecks, m.toolChanges, m.liveDuration, m.requests, m.durations, m.searches, m.rateLimited, m.mcpMessages, m.streams, m.feedCaughtUp,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpdir_index_entries", Help: "Entries in the search index."},
			func() float64 { return float64(entries()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mcpdir_log_lines_dropped_total", Help: "Log lines dropped because the log output could not keep up."},
			func() float64 { return float64(droppedLogLines()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// Cache counts the lookups of a cache of answers by whether they found one:
// lookups reads the cache's counts.
func (m *Metrics) Cache(name string, lookups func() (hits, misses uint64)) {
	for i, result := range []string{"hit", "miss"} {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "mcpdir_cache_lookups_total",
			Help:        "Lookups in the caches of search results and encoded answers, by whether they found one.",
			ConstLabels: prometheus.Labels{"cache": name, "result": result},
		}, func() float64 {
			hits, misses := lookups()
			return float64([2]uint64{hits, misses}[i])
		}))
	}
}

// OAuthRegistered counts a client registration.
func (m *Metrics) OAuthRegistered() { m.oauthRegistrations.Inc() }

// OAuthAuthorized counts an answer on the consent page.
func (m *Metrics) OAuthAuthorized(allowed bool) {
	decision := "denied"
	if allowed {
		decision = "allowed"
	}
	m.oauthAuthorizations.WithLabelValues(decision).Inc()
}

// OAuthGranted counts tokens issued by grant type.
func (m *Metrics) OAuthGranted(grantType string) { m.oauthTokens.WithLabelValues(grantType).Inc() }

// OAuthRefused counts a refused OAuth request by its error code (a fixed
// set: the server's own codes, never the client's input).
func (m *Metrics) OAuthRefused(reason string) { m.oauthRefusals.WithLabelValues(reason).Inc() }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Route returns the request counter of one route, with its label children
// resolved once (http's Observer): a request then finds its counter by
// indexing, with no label lookup.
func (m *Metrics) Route(route string) func(method string, status int, d time.Duration) {
	r := &routeMetrics{route: route, requests: m.requests, duration: m.durations.WithLabelValues(route)}
	return r.observe
}

// routeMetrics counts the requests of one route.
type routeMetrics struct {
	route    string
	requests *prometheus.CounterVec
	duration prometheus.Observer
	// counters[method][status-minStatus], resolved at the first request
	// of each pair.
	counters [len(httpMethods) + 1]atomic.Pointer[[maxStatus - minStatus]atomic.Pointer[prometheus.Counter]]
}

// httpMethods are the methods counted by name; any other counts as
// "other", so that a client cannot grow the label set.
var httpMethods = [...]string{"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"}

const minStatus, maxStatus = 100, 600

// observe counts a request and its duration.
func (r *routeMetrics) observe(method string, status int, d time.Duration) {
	r.duration.Observe(d.Seconds())
	row := len(httpMethods)
	for i, m := range httpMethods {
		if m == method {
			row = i
			break
		}
	}
	if row == len(httpMethods) {
		method = "other"
	}
	if status < minStatus || status >= maxStatus {
		r.requests.WithLabelValues(r.route, method, strconv.Itoa(status)).Inc()
		return
	}
	statuses := r.counters[row].Load()
	if statuses == nil {
		r.counters[row].CompareAndSwap(nil, new([maxStatus - minStatus]atomic.Pointer[prometheus.Counter]))
		statuses = r.counters[row].Load()
	}
	slot := &statuses[status-minStatus]
	c := slot.Load()
	if c == nil {
		counter := r.requests.WithLabelValues(r.route, method, strconv.Itoa(status))
		slot.CompareAndSwap(nil, &counter)
		c = slot.Load()
	}
	(*c).Inc()
}

// MessageCounter returns the counter of an MCP message (mcp's Observer),
// resolved once per method and tool: the endpoint resolves every pair it
// can count at start, naming only the methods it knows and the
// directory's tools, so that a client cannot grow the label set.
func (m *Metrics) MessageCounter(method, tool string) func() {
	return m.mcpMessages.WithLabelValues(method, tool).Inc
}

// StreamOpened and StreamClosed track open MCP event streams (mcp's
// Observer).
func (m *Metrics) StreamOpened() { m.streams.Inc() }
func (m *Metrics) StreamClosed() { m.streams.Dec() }

// SyncRan counts a registry sync.
func (m *Metrics) SyncRan(ok bool) {
	result := "ok"
	if !ok {
		result = "failed"
	}
	m.syncs.WithLabelValues(result).Inc()
}

// LiveChecked counts a live check and its duration.
func (m *Metrics) LiveChecked(status string, d time.Duration) {
	m.liveChecks.WithLabelValues(status).Inc()
	m.liveDuration.Observe(d.Seconds())
}

// ToolsChanged counts a change of a server's tool list.
func (m *Metrics) ToolsChanged(c mcpdir.ToolChange) {
	kind := "listed"
	if c.Redefined() {
		kind = "redefined"
	}
	m.toolChanges.WithLabelValues(kind).Inc()
}

// CaughtUp records that the change feed was read to its end.
func (m *Metrics) CaughtUp(at time.Time) { m.feedCaughtUp.Set(float64(at.UnixNano()) / 1e9) }

// Index times the searches of an index.
func (m *Metrics) Index(x mcpdir.SearchIndex) mcpdir.SearchIndex { return timedIndex{x, m.searches} }

type timedIndex struct {
	mcpdir.SearchIndex
	h prometheus.Histogram
}

func (t timedIndex) Search(q string, limit int) mcpdir.SearchResult {
	return t.Find(mcpdir.Query{Text: q, Limit: limit})
}

func (t timedIndex) Find(q mcpdir.Query) mcpdir.SearchResult {
	start := time.Now()
	res := t.SearchIndex.Find(q)
	t.h.Observe(time.Since(start).Seconds())
	return res
}

// Guard counts the requests a guard refuses for their budget.
func (m *Metrics) Guard(g mcpdir.Guard) mcpdir.Guard { return countedGuard{g, m.rateLimited} }

type countedGuard struct {
	mcpdir.Guard
	c prometheus.Counter
}

func (g countedGuard) Spend(ctx context.Context, k *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	d, err := g.Guard.Spend(ctx, k)
	if err == nil && !d.Allowed {
		g.c.Inc()
	}
	return d, err
}
