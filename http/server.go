// Package http is the directory's HTTP interface: the REST API (search,
// detail, tool search; search.go, detail.go, tools.go), the admin API
// (admin.go: entries, splits and joins, approvals, conflicts, audit,
// export), the health checks (health.go, starting.go), metrics, the
// middleware every request passes (timeouts, bounds, client addresses
// behind trusted proxies, access log), error bodies with stable codes
// (respond.go), the OpenAPI document (openapi.go), and the mount points of
// the MCP endpoint, the pages, the OAuth server and the registry API.
// routes.go maps it all.
package http

import (
	"cmp"
	"context"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/oauth"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/web"
)

// Searcher answers ranked searches.
type Searcher interface {
	Find(q mcpdir.Query) mcpdir.SearchResult
	// Get returns an entry by its id (or a record merged into it).
	Get(id string) (*mcpdir.Entry, bool)
	// Generation changes whenever the index does (facets are cached
	// for one generation).
	Generation() uint64
}

// Config is what the HTTP interface needs.
type Config struct {
	Logger *slog.Logger
	Index  Searcher
	// Conflicts, if set, lists for admins what may be one server but was
	// not trusted enough to join (merge.Index.Conflicts).
	Conflicts func() []merge.Conflict
	// GroupOf, if set, finds the entry a record id is merged into and the
	// ids of every record in it (merge.Index.GroupOf): an admin's
	// unapproval takes back the approval of any of them.
	GroupOf func(id string) (string, []string, bool)
	// Tools, if set, serves GET /api/open/v1/tools/search.
	Tools ToolSearcher
	Guard mcpdir.Guard
	// MaxResults is how many hits a REST search returns (the spec has no
	// limit parameter).
	MaxResults int
	// Pages, if set, serves the directory to people: / and /servers/{id},
	// at most PagesPerMinute a minute per client address (0: no limit),
	// counted by PageLimiter; the address comes from X-Forwarded-For only
	// when the peer is one of TrustedProxies.
	Pages          *web.Pages
	PagesPerMinute int
	PageLimiter    mcpdir.RateLimiter
	TrustedProxies TrustedProxies
	// MCP serves /api/open/mcp; nil leaves it unmounted.
	MCP http.Handler
	// OAuth, if set with Pages, is the OAuth authorization server
	// (package oauth), its pages behind the page limit.
	OAuth *oauth.Server
	// Registry, if set, serves the MCP Registry's read API (/v0.1/servers,
	// package registryapi), to RegistryAccess: RegistryPublic, each
	// address at most RegistryPerMinute requests a minute (counted by
	// PageLimiter), or RegistryKey; and its write side to admin keys.
	Registry          *registryapi.API
	RegistryAccess    string
	RegistryPerMinute int
	// Ready reports whether the replica is ready to serve, and the state
	// of what it depends on.
	Ready func(ctx context.Context) Readiness
	// Baseline mounts GET /debug/baseline?bytes=N, which answers a
	// precomputed body of N bytes with the headers of a search and
	// nothing else (no middleware: no log line, no metrics): the limit
	// that load benchmarks compare search throughput with, measured in
	// the same server.
	Baseline bool
	// Timeouts bound slow clients; zero fields take DefaultTimeouts'.
	Timeouts Timeouts
	// AccessLog writes a line per request to Logger, at info.
	AccessLog bool
	// Observer, if set, counts every request (metrics).
	Observer Observer
	// Store and AdminGuard, if set, serve the admin API (/api/admin/v1/…)
	// to admin keys.
	Store      AdminStore
	AdminGuard AdminGuard
	// Metrics, if set, is served at GET /metrics to requests from this
	// machine (not relayed by a proxy) and to admin keys.
	Metrics http.Handler
	// Insight, if set, counts searches and refusals by door (package
	// insight); Insights, if set with Store and AdminGuard, serves them
	// to admin keys at GET /api/admin/v1/insights, InsightDays back at
	// most.
	Insight     mcpdir.InsightRecorder
	Insights    mcpdir.InsightStore
	InsightDays int
}

// Timeouts bound how long a client may take. Long-lived event streams lift
// the request deadlines for themselves (http.ResponseController).
type Timeouts struct {
	Header  time.Duration // to send a request's headers
	Request time.Duration // to send its body, and to take the answer
	Idle    time.Duration // a keep-alive connection with no request
}

// DefaultTimeouts: a client trickling its headers is cut off after 10 s,
// one trickling its body (or not reading the answer) after 60 s, and an
// idle connection is closed after 60 s.
var DefaultTimeouts = Timeouts{Header: 10 * time.Second, Request: 60 * time.Second, Idle: 60 * time.Second}

func (t Timeouts) orDefaults() Timeouts {
	return Timeouts{
		Header:  cmp.Or(t.Header, DefaultTimeouts.Header),
		Request: cmp.Or(t.Request, DefaultTimeouts.Request),
		Idle:    cmp.Or(t.Idle, DefaultTimeouts.Idle),
	}
}

// NewHTTPServer returns the http.Server for the handler, with the timeouts
// and bounds a public service needs.
func NewHTTPServer(handler http.Handler, t Timeouts, errorLog *log.Logger) *http.Server {
	t = t.orDefaults()
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: t.Header,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          errorLog,
	}
}

// Input bounds. A URL holds the longest keywords taken
// (mcpdir.MaxKeywordsBytes) percent-encoded, three bytes a byte.
const (
	MaxURLBytes  = 3*mcpdir.MaxKeywordsBytes + 1<<10
	MaxBodyBytes = 1 << 20
)

// NewServer returns the whole HTTP surface with its middleware.
func NewServer(cfg Config) http.Handler {
	if cfg.MaxResults <= 0 {
		cfg.MaxResults = 50
	}
	if cfg.Insight == nil {
		cfg.Insight = mcpdir.NoInsight
	}
	mux := http.NewServeMux()
	addRoutes(mux, cfg)
	var h http.Handler = mux
	h = boundRequest(h)
	h = recoverPanics(cfg.Logger, h)
	h = deadlines(cfg.Timeouts.orDefaults().Request, h)
	h = observe(cfg.Logger, cfg.AccessLog, cfg.Observer, cfg.TrustedProxies.ClientIP, h)
	if cfg.Baseline {
		h = withBaseline(h)
	}
	return h
}
