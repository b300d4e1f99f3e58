package http

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the document describing every route of the HTTP interface,
// served at /api/openapi.json. Tests validate the running server's answers
// against it, and CI lints it (e2e/openapi.sh).
//
//go:embed openapi.json
var OpenAPI []byte

func handleOpenAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusOK)
		w.Write(OpenAPI)
	})
}
