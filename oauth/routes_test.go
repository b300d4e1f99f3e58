package oauth

import "net/http"

// Routes mounts the authorization server as http/routes.go does, its
// pages behind limit: for this package's tests.
func (s *Server) Routes(mux *http.ServeMux, limit func(http.Handler) http.Handler) {
	prm := s.ProtectedResourceMetadata()
	mux.Handle("/.well-known/oauth-protected-resource", prm)
	mux.Handle("/.well-known/oauth-protected-resource"+ResourcePath, prm)
	mux.Handle("/.well-known/oauth-authorization-server", s.Metadata())
	csrf := http.NewCrossOriginProtection()
	mux.Handle("GET /oauth/authorize", limit(s.Authorize()))
	mux.Handle("POST /oauth/authorize", limit(csrf.Handler(s.Decide())))
	mux.Handle("/oauth/register", s.Register())
	mux.Handle("/oauth/token", s.Token())
	mux.Handle("/oauth/revoke", s.Revoke())
}
