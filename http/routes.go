package http

import (
	"net/http"

	"github.com/mcpdir/mcpdir/adminops"
	"github.com/mcpdir/mcpdir/oauth"
	"github.com/mcpdir/mcpdir/web"
)

// mcpPath is the MCP endpoint (spec 4.2); it carries no version segment.
const mcpPath = "/api/open/mcp"

// addRoutes maps every route of the service: the REST and admin APIs, the
// MCP endpoint, the registry API, the pages, the accounts and the admin
// area, the OAuth authorization server, health and metrics. The packages
// give handlers; which path serves which, and behind what, is said here.
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
	if r := cfg.Registry; r != nil {
		read := registryAccess(cfg)
		mux.Handle("GET /v0.1/servers", read(r.List()))
		mux.Handle("GET /v0.1/servers/{serverName}/versions", read(r.Versions()))
		mux.Handle("GET /v0.1/servers/{serverName}/versions/{version}", read(r.Version()))
		// Any other path under it (a server name's slash unencoded, most
		// often) is answered as the API answers, not with an HTML page.
		mux.Handle("/v0.1/servers/{rest...}", read(r.NoRoute()))
		if cfg.AdminGuard != nil {
			write := registryAdmin(cfg)
			mux.Handle("POST /v0.1/publish", write(r.Publish()))
			mux.Handle("PUT /v0.1/servers/{serverName}/versions/{version}", write(r.Publish()))
			mux.Handle("DELETE /v0.1/servers/{serverName}/versions/{version}", write(r.Delete()))
			mux.Handle("PATCH /v0.1/servers/{serverName}/versions/{version}/status", write(r.SetStatus()))
			mux.Handle("PATCH /v0.1/servers/{serverName}/status", write(r.SetStatusAll()))
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
		p, csrf := cfg.Pages, http.NewCrossOriginProtection()
		get := func(pattern string, h http.Handler) { mux.Handle("GET "+pattern, limit(h)) }
		post := func(pattern string, h http.Handler) { mux.Handle("POST "+pattern, limit(csrf.Handler(h))) }
		if p.HasAccounts() {
			get("/signup", p.SignupForm())
			post("/signup", p.Signup())
			get("/login", p.LoginForm())
			post("/login", p.Login())
			post("/logout", p.Logout())
			get("/keys", p.Keys())
			post("/keys", p.CreateKey())
			post("/keys/{prefix}/revoke", p.RevokeKey())
			if p.HasApps() {
				post("/keys/apps/{id}/revoke", p.RevokeApp())
			}
			if p.HasAdmin() {
				get("/admin", p.Admin())
				get("/admin/entries/{id}", p.AdminEntry())
				post("/admin/entries/{id}/edit", p.AdminEdit())
				post("/admin/entries/{id}/hide", p.AdminHide())
				post("/admin/entries/{id}/approve", p.AdminApprove())
				post("/admin/entries/{id}/unapprove", p.AdminUnapprove())
				post("/admin/entries/{id}/split", p.AdminSplit())
				post("/admin/entries/{id}/join", p.AdminJoin())
			}
		}
		if o := cfg.OAuth; o != nil {
			prm := o.ProtectedResourceMetadata()
			mux.Handle("/.well-known/oauth-protected-resource", prm)
			mux.Handle("/.well-known/oauth-protected-resource"+oauth.ResourcePath, prm)
			mux.Handle("/.well-known/oauth-authorization-server", o.Metadata())
			get("/oauth/authorize", o.Authorize())
			post("/oauth/authorize", o.Decide())
			mux.Handle("/oauth/register", o.Register())
			mux.Handle("/oauth/token", o.Token())
			mux.Handle("/oauth/revoke", o.Revoke())
		}
	}
	mux.Handle("/", notFound(cfg.Pages))
}
