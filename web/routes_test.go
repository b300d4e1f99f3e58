package web

import "net/http"

// Routes mounts the account pages and the admin area as http/routes.go
// does, each behind limit: for this package's tests.
func (p *Pages) Routes(mux *http.ServeMux, limit func(http.Handler) http.Handler) {
	if !p.HasAccounts() {
		return
	}
	csrf := http.NewCrossOriginProtection()
	get := func(pattern string, h http.Handler) { mux.Handle("GET "+pattern, limit(h)) }
	post := func(pattern string, h http.Handler) { mux.Handle("POST "+pattern, limit(csrf.Handler(h))) }
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
