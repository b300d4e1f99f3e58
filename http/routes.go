package http

import (
	"net/http"

	"github.com/mcpdir/mcpdir/adminops"
	"github.com/mcpdir/mcpdir/web"
)

// mcpPath is the MCP endpoint (spec 4.2); it carries no version segment.
const mcpPath = "/api/open/mcp"

// addRoutes maps the whole API surface.
func addRoutes(mux *http.ServeMux, cfg Config) {
	mux.Handle("GET /api/open/v1/search", handleSearch(cfg.Index, cfg.Guard, cfg.MaxResults, cfg.Insight, cfg.Logger))
	mux.Handle("GET /api/open/v1/servers/{id}", handleDetail(cfg.Index, cfg.Guard, cfg.Insight, cfg.Logger))
	if cfg.Tools != nil {
		mux.Handle("GET /api/open/v1/tools/search", handleToolSearch(cfg.Tools, cfg.Guard, cfg.Insight, cfg.Logger))
		mux.Handle("HEAD /api/open/v1/tools/search", methodNotAllowed("GET"))
		mux.Handle("/api/open/v1/tools/search", methodNotAllowed("GET"))
	}
	if cfg.MCP != nil {
		mux.Handle(mcpPath, cfg.MCP)
		mux.Handle(mcpPath+"/", cfg.MCP)
	}
	if cfg.AdminGuard != nil && cfg.Store != nil {
		a := &admin{index: cfg.Index, conflictsOf: cfg.Conflicts, store: cfg.Store, guard: cfg.AdminGuard, logger: cfg.Logger,
			ops: &adminops.Ops{Store: cfg.Store, GroupOf: cfg.GroupOf, Logger: cfg.Logger}}
		mux.Handle("POST /api/admin/v1/entries", a.authorize(a.create))
		mux.Handle("GET /api/admin/v1/entries/{id}", a.authorize(a.get))
		mux.Handle("PUT /api/admin/v1/entries/{id}", a.authorize(a.replace))
		mux.Handle("DELETE /api/admin/v1/entries/{id}", a.authorize(a.delete))
		mux.Handle("POST /api/admin/v1/entries/{id}/split", a.authorize(a.split))
		mux.Handle("DELETE /api/admin/v1/entries/{id}/split/{other}", a.authorize(a.unsplit))
		mux.Handle("POST /api/admin/v1/entries/{id}/join", a.authorize(a.join))
		mux.Handle("DELETE /api/admin/v1/entries/{id}/join/{other}", a.authorize(a.unjoin))
		mux.Handle("GET /api/admin/v1/conflicts", a.authorize(a.conflicts))
		mux.Handle("GET /api/admin/v1/audit", a.authorize(a.auditLog))
		mux.Handle("POST /api/admin/v1/entries/{id}/approve", a.authorize(a.approve))
		mux.Handle("POST /api/admin/v1/entries/{id}/unapprove", a.authorize(a.unapprove))
		mux.Handle("GET /api/admin/v1/export", a.authorize(a.export))
		if cfg.Insights != nil {
			mux.Handle("GET /api/admin/v1/insights", a.authorize(insights(cfg.Insights, cfg.InsightDays, cfg.Logger)))
		}
	}
	if cfg.Baseline {
		mux.Handle("GET /debug/baseline", handleBaseline()) // with ?observed=1 (baseline.go)
	}
	if cfg.Registry != nil {
		cfg.Registry.Routes(mux, registryAccess(cfg))
		if p, ok := cfg.Registry.(publishRouted); ok && cfg.AdminGuard != nil {
			p.PublishRoutes(mux, registryAdmin(cfg))
		}
	}
	mux.Handle("GET /api/openapi.json", handleOpenAPI())
	mux.Handle("GET /healthz", handleHealthz())
	mux.Handle("GET /readyz", handleReadyz(cfg.Ready))
	if cfg.Metrics != nil {
		mux.Handle("GET /metrics", handleMetrics(cfg.Metrics, cfg.Guard, cfg.Logger))
	}
	// A GET pattern also matches HEAD, which would spend a search's budget
	// for no body.
	mux.Handle("HEAD /api/open/v1/search", methodNotAllowed("GET"))
	mux.Handle("/api/open/v1/search", methodNotAllowed("GET"))
	if cfg.Pages != nil {
		limit := pageLimit(cfg)
		mux.Handle("GET /{$}", limit(cfg.Pages.Search()))
		mux.Handle("GET /servers/{id}", limit(cfg.Pages.Server()))
		mux.Handle("GET /static/", web.Static())
		mux.Handle("GET /favicon.ico", web.Favicon())
		cfg.Pages.Routes(mux, limit)
		if cfg.OAuth != nil {
			cfg.OAuth.Routes(mux, limit)
		}
	}
	mux.Handle("/", notFound(cfg.Pages))
}
