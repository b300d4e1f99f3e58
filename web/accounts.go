package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/auth"
)

// sessionCookie carries a signed-in browser's session token.
const sessionCookie = "mcpdir_session"

// Keys is what the API Keys page needs of the keys (auth.Service).
type Keys interface {
	KeysOf(owner string) []*mcpdir.APIKey
	Used(ctx context.Context, k *mcpdir.APIKey) (int, bool)
	Add(k *mcpdir.APIKey)
	Revoke(ctx context.Context, prefix string) error
}

// Apps is what the API Keys page needs of the clients people allowed
// through OAuth (oauth.Server).
type Apps interface {
	Apps(ctx context.Context, accountID string) ([]App, error)
	// RevokeApp revokes an account's grant; another account's is
	// mcpdir.ErrNotFound.
	RevokeApp(ctx context.Context, accountID, id string) error
}

// AccountConfig turns on sign-up, log-in and the API Keys page.
type AccountConfig struct {
	Apps Apps // nil: no "Connected apps"

	Accounts  *accounts.Service
	Store     mcpdir.KeyStore
	Keys      Keys
	SignupOff bool   // serve --signup closed
	PublicURL string // the server's base URL, for client configurations
	ClientIP  func(*http.Request) string
}

// WithAccounts turns the account pages on.
func (p *Pages) WithAccounts(cfg *AccountConfig) { p.accounts = cfg }

// HasAccounts reports whether the account pages are on (WithAccounts), and
// HasApps whether they list the OAuth apps an account allowed.
func (p *Pages) HasAccounts() bool { return p.accounts != nil }
func (p *Pages) HasApps() bool     { return p.accounts != nil && p.accounts.Apps != nil }

// The account pages' handlers, which http/routes.go maps (each behind the
// per-address page limit, and every POST behind cross-origin protection):
// sign-up, log-in, log-out, and the API Keys page with its key and app
// revocations.
func (p *Pages) SignupForm() http.Handler { return http.HandlerFunc(p.signupForm) }
func (p *Pages) Signup() http.Handler     { return http.HandlerFunc(p.signup) }
func (p *Pages) LoginForm() http.Handler  { return http.HandlerFunc(p.loginForm) }
func (p *Pages) Login() http.Handler      { return http.HandlerFunc(p.login) }
func (p *Pages) Logout() http.Handler     { return http.HandlerFunc(p.logout) }
func (p *Pages) Keys() http.Handler       { return http.HandlerFunc(p.keysPage) }
func (p *Pages) CreateKey() http.Handler  { return http.HandlerFunc(p.createKey) }
func (p *Pages) RevokeKey() http.Handler  { return http.HandlerFunc(p.revokeKey) }
func (p *Pages) RevokeApp() http.Handler  { return http.HandlerFunc(p.revokeApp) }

// SignedIn is the account of the request's session cookie, or nil.
func (p *Pages) SignedIn(r *http.Request) *mcpdir.Account {
	if p.accounts == nil {
		return nil
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	a, err := p.accounts.Accounts.Session(r.Context(), c.Value)
	if err != nil {
		return nil
	}
	return a
}

// requireSignIn is the signed-in account; without one it sends to the
// log-in page and is nil.
func (p *Pages) requireSignIn(w http.ResponseWriter, r *http.Request) *mcpdir.Account {
	a := p.SignedIn(r)
	if a == nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
	}
	return a
}

func (p *Pages) setSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: r.TLS != nil || strings.HasPrefix(p.accounts.PublicURL, "https://"), MaxAge: int(accounts.SessionIdle / time.Second)})
}

type formPage struct {
	Base
	Login        bool
	Email, Error string
	// Next is where to go once signed in (a path of this site: the
	// authorization page an MCP client sent the person to).
	Next string
}

// nextPath is the next parameter of a request when it is a path of this
// site, else "".
func nextPath(r *http.Request) string {
	next := r.FormValue("next")
	u, err := url.Parse(next)
	if err != nil || len(next) > 8192 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") || u.Host != "" || u.Scheme != "" {
		return ""
	}
	return next
}

// afterSignIn sends a person who just signed in where they were going.
func afterSignIn(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, cmp.Or(nextPath(r), "/keys"), http.StatusSeeOther)
}

func (p *Pages) signupForm(w http.ResponseWriter, r *http.Request) {
	if p.accounts.SignupOff {
		p.Message(w, r, http.StatusForbidden, "Sign-up is closed", "This directory does not take new accounts: ask its operator for a key.")
		return
	}
	p.render(w, r, http.StatusOK, "signup", &formPage{Base: Base{Title: "Sign up"}, Next: nextPath(r)})
}

func (p *Pages) signup(w http.ResponseWriter, r *http.Request) {
	if p.accounts.SignupOff {
		p.signupForm(w, r)
		return
	}
	email, password := r.PostFormValue("email"), r.PostFormValue("password")
	token, _, err := p.accounts.Accounts.SignUp(r.Context(), email, password)
	if err != nil {
		status, msg := http.StatusBadRequest, mcpdir.ErrorMessage(err)
		if mcpdir.ErrorCode(err) == mcpdir.ECodeConflict {
			status = http.StatusConflict
		} else if busy, ok := errors.AsType[*accounts.BusyError](err); ok {
			status, msg = tooBusy(w, busy)
		} else if _, ok := errors.AsType[*mcpdir.Error](err); !ok {
			p.logger.ErrorContext(r.Context(), "web: sign up", "err", err)
			status = http.StatusServiceUnavailable
		}
		p.render(w, r, status, "signup", &formPage{Base: Base{Title: "Sign up"}, Email: email, Error: msg, Next: nextPath(r)})
		return
	}
	p.setSession(w, r, token)
	afterSignIn(w, r)
}

func (p *Pages) loginForm(w http.ResponseWriter, r *http.Request) {
	p.render(w, r, http.StatusOK, "signup", &formPage{Base: Base{Title: "Log in"}, Login: true, Next: nextPath(r)})
}

func (p *Pages) login(w http.ResponseWriter, r *http.Request) {
	email := r.PostFormValue("email")
	token, _, err := p.accounts.Accounts.LogIn(r.Context(), email, r.PostFormValue("password"), p.accounts.ClientIP(r))
	if err != nil {
		status, msg := http.StatusUnauthorized, "Invalid email or password"
		var th *accounts.ThrottledError
		var busy *accounts.BusyError
		switch {
		case errors.As(err, &th):
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(th.After/time.Second))))
			status, msg = http.StatusTooManyRequests, "Too many failed logins: wait "+th.After.Round(time.Second).String()+" and try again."
		case errors.As(err, &busy):
			status, msg = tooBusy(w, busy)
		case err != accounts.ErrBadLogin:
			p.logger.ErrorContext(r.Context(), "web: log in", "err", err)
			status, msg = http.StatusServiceUnavailable, "Logging in is not possible right now: try again shortly."
		}
		p.render(w, r, status, "signup", &formPage{Base: Base{Title: "Log in"}, Login: true, Email: email, Error: msg, Next: nextPath(r)})
		return
	}
	p.setSession(w, r, token)
	afterSignIn(w, r)
}

// tooBusy answers an attempt that found every password-hashing slot taken:
// 429 with Retry-After, its password unchecked.
func tooBusy(w http.ResponseWriter, busy *accounts.BusyError) (int, string) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(busy.After/time.Second))))
	return http.StatusTooManyRequests, "Too many people are signing in right now: try again in a moment."
}

func (p *Pages) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		p.accounts.Accounts.LogOut(r.Context(), c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode, MaxAge: -1})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

type keyRow struct {
	Name, Prefix, Created, Expires, LastUsed, Usage, State string
}

type newKey struct {
	Name, Secret string
	Configs      []snippet
}

type appRow struct {
	ID, Name, Allowed, LastUsed, Usage string
}

type keysPage struct {
	Base
	Keys  []keyRow
	Apps  []appRow
	New   *newKey
	Error string
}

// keysPage lists the signed-in account's keys; logged out, it sends to
// the log-in page.
func (p *Pages) keysPage(w http.ResponseWriter, r *http.Request) {
	a := p.requireSignIn(w, r)
	if a == nil {
		return
	}
	p.renderKeys(w, r, a, http.StatusOK, nil, "")
}

func (p *Pages) renderKeys(w http.ResponseWriter, r *http.Request, a *mcpdir.Account, status int, created *newKey, problem string) {
	// A person's keys are no one else's: no cache keeps the page.
	w.Header().Set("Cache-Control", "no-store")
	data := &keysPage{Base: Base{Title: "API Keys", User: a}, New: created, Error: problem}
	now := time.Now()
	day := func(t time.Time, zero string) string {
		if t.IsZero() {
			return zero
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	}
	for _, k := range p.accounts.Keys.KeysOf(a.ID) {
		row := keyRow{Name: k.Name, Prefix: k.Prefix, Created: day(k.CreatedAt, "-"), Expires: day(k.ExpiresAt, "never"),
			LastUsed: day(k.LastUsedAt, "never"), State: "active", Usage: "unlimited"}
		switch {
		case k.Revoked():
			row.State = "revoked"
		case k.Expired(now):
			row.State = "expired"
		}
		if used, ok := p.accounts.Keys.Used(r.Context(), k); ok {
			row.Usage = fmt.Sprintf("%d of %d", used, k.RateLimit)
		}
		data.Keys = append(data.Keys, row)
	}
	if p.accounts.Apps != nil {
		apps, err := p.accounts.Apps.Apps(r.Context(), a.ID)
		if err != nil {
			p.logger.ErrorContext(r.Context(), "web: connected apps", "err", err)
			data.Error = cmp.Or(data.Error, "Your connected apps cannot be listed right now: try again shortly.")
		}
		for _, app := range apps {
			data.Apps = append(data.Apps, appRow{ID: app.ID, Name: app.Name, Allowed: day(app.Allowed, "-"), LastUsed: day(app.LastUsed, "never"),
				Usage: fmt.Sprintf("%d of %d", app.Used, app.Limit)})
		}
	}
	p.render(w, r, status, "keys", data)
}

// maxKeysPerAccount bounds the live keys (neither revoked nor expired) of
// one account; revoked and expired ones stay listed but leave room.
const maxKeysPerAccount = 20

func liveKeys(keys []*mcpdir.APIKey, now time.Time) int {
	n := 0
	for _, k := range keys {
		if !k.Revoked() && !k.Expired(now) {
			n++
		}
	}
	return n
}

func (p *Pages) createKey(w http.ResponseWriter, r *http.Request) {
	a := p.requireSignIn(w, r)
	if a == nil {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	lifetimes := map[string]time.Duration{"never": 0, "30d": 30 * 24 * time.Hour, "90d": 90 * 24 * time.Hour, "365d": 365 * 24 * time.Hour}
	lifetime, ok := lifetimes[r.PostFormValue("expires")]
	switch {
	case name == "" || len(name) > 100 || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		p.renderKeys(w, r, a, http.StatusBadRequest, nil, "Give the key a name: 1 to 100 printable characters.")
		return
	case !ok:
		p.renderKeys(w, r, a, http.StatusBadRequest, nil, "Choose when the key expires.")
		return
	case liveKeys(p.accounts.Keys.KeysOf(a.ID), time.Now()) >= maxKeysPerAccount:
		p.renderKeys(w, r, a, http.StatusBadRequest, nil, fmt.Sprintf("An account has at most %d active keys: revoke one first.", maxKeysPerAccount))
		return
	}
	secret, k, err := auth.CreateKey(r.Context(), p.accounts.Store, auth.KeySpec{Owner: a.ID, Name: name, Scope: mcpdir.ScopeSearch,
		RateLimit: mcpdir.DefaultRateLimit, Lifetime: lifetime})
	if err != nil {
		p.logger.ErrorContext(r.Context(), "web: create key", "err", err)
		p.renderKeys(w, r, a, http.StatusServiceUnavailable, nil, "The key could not be created right now: try again shortly.")
		return
	}
	p.accounts.Keys.Add(k)
	// The page that shows the key is the answer to the POST, never a URL
	// that a reload or the history could show again.
	p.renderKeys(w, r, a, http.StatusCreated, &newKey{Name: name, Secret: secret, Configs: clientConfigs(p.accounts.PublicURL, secret)}, "")
}

func (p *Pages) revokeKey(w http.ResponseWriter, r *http.Request) {
	a := p.requireSignIn(w, r)
	if a == nil {
		return
	}
	prefix := r.PathValue("prefix")
	owned := false
	for _, k := range p.accounts.Keys.KeysOf(a.ID) {
		owned = owned || k.Prefix == prefix
	}
	if !owned { // another's key is none of this account's business
		p.NotFound(w, r, "You have no key "+prefix+".")
		return
	}
	if err := p.accounts.Keys.Revoke(r.Context(), prefix); err != nil {
		p.logger.ErrorContext(r.Context(), "web: revoke key", "err", err)
		p.renderKeys(w, r, a, http.StatusServiceUnavailable, nil, "The key could not be revoked right now: try again shortly.")
		return
	}
	http.Redirect(w, r, "/keys", http.StatusSeeOther)
}

func (p *Pages) revokeApp(w http.ResponseWriter, r *http.Request) {
	a := p.requireSignIn(w, r)
	if a == nil {
		return
	}
	err := p.accounts.Apps.RevokeApp(r.Context(), a.ID, r.PathValue("id"))
	switch {
	case errors.Is(err, mcpdir.ErrNotFound):
		p.NotFound(w, r, "You have no such connected app.")
	case err != nil:
		p.logger.ErrorContext(r.Context(), "web: revoke app", "err", err)
		p.renderKeys(w, r, a, http.StatusServiceUnavailable, nil, "The app could not be revoked right now: try again shortly.")
	default:
		http.Redirect(w, r, "/keys", http.StatusSeeOther)
	}
}

// clientConfigs are ready configurations of the directory's MCP endpoint
// with a new key.
func clientConfigs(publicURL, secret string) []snippet {
	endpoint := strings.TrimRight(publicURL, "/") + "/api/open/mcp"
	auth := "Bearer " + secret
	return []snippet{
		{"Claude Desktop", "claude_desktop_config.json", fmt.Sprintf(`{
  "mcpServers": {
    "mcpdir": {
      "command": "npx",
      "args": ["-y", "mcp-remote", %q, "--header", "Authorization:${MCPDIR_AUTH}"],
      "env": {"MCPDIR_AUTH": %q}
    }
  }
}`, endpoint, auth)},
		{"Claude Code", "", fmt.Sprintf("claude mcp add --transport http mcpdir %s --header %q", endpoint, "Authorization: "+auth)},
		{"Cursor", "~/.cursor/mcp.json", fmt.Sprintf(`{
  "mcpServers": {
    "mcpdir": {"url": %q, "headers": {"Authorization": %q}}
  }
}`, endpoint, auth)},
		{"VS Code", ".vscode/mcp.json", fmt.Sprintf(`{
  "servers": {
    "mcpdir": {"type": "http", "url": %q, "headers": {"Authorization": %q}}
  }
}`, endpoint, auth)},
		{"curl", "", fmt.Sprintf("curl -H %q '%s/api/open/v1/search?keywords=postgres'", "Authorization: "+auth, strings.TrimRight(publicURL, "/"))},
	}
}
