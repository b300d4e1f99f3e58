package registryapi

import "net/http"

// Routes mounts the read API as http/routes.go does, each handler wrapped
// by wrap (nil: none): for this package's tests.
func (a *API) Routes(mux *http.ServeMux, wrap func(http.Handler) http.Handler) {
	if wrap == nil {
		wrap = func(h http.Handler) http.Handler { return h }
	}
	mux.Handle("GET /v0.1/servers", wrap(a.List()))
	mux.Handle("GET /v0.1/servers/{serverName}/versions", wrap(a.Versions()))
	mux.Handle("GET /v0.1/servers/{serverName}/versions/{version}", wrap(a.Version()))
	mux.Handle("/v0.1/servers/{rest...}", wrap(a.NoRoute()))
}

// PublishRoutes mounts the write side as http/routes.go does.
func (a *API) PublishRoutes(mux *http.ServeMux, wrap func(http.Handler) http.Handler) {
	mux.Handle("POST /v0.1/publish", wrap(a.Publish()))
	mux.Handle("PUT /v0.1/servers/{serverName}/versions/{version}", wrap(a.Publish()))
	mux.Handle("DELETE /v0.1/servers/{serverName}/versions/{version}", wrap(a.Delete()))
	mux.Handle("PATCH /v0.1/servers/{serverName}/versions/{version}/status", wrap(a.SetStatus()))
	mux.Handle("PATCH /v0.1/servers/{serverName}/status", wrap(a.SetStatusAll()))
}
