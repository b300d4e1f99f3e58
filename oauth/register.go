package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/clientnet"
)

// registration is a client's registration request (RFC 7591). Fields the
// directory does not use (client_uri, logo_uri, scope, contacts, …) are
// accepted and ignored.
type registration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type,omitempty"`
}

// registered is the answer to a registration: the client's id, and its
// metadata as registered.
type registered struct {
	ClientID         string `json:"client_id"`
	ClientIDIssuedAt int64  `json:"client_id_issued_at"`
	registration
}

// parseRegistration reads and checks a registration request's body. The
// client is public: whatever authentication method it asks for, it is
// registered with "none" and gets no secret (RFC 7591 lets the server
// replace requested values; the answer says what was registered).
func parseRegistration(body []byte) (*registered, *oauthError) {
	var req registration
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata (RFC 7591)")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", "the body must hold one JSON object")
	}
	name := strings.TrimSpace(req.ClientName)
	switch {
	case !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) || strings.ContainsFunc(name, isBidi):
		return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", "client_name must be printable text")
	case utf8.RuneCountInString(name) > maxClientNameRunes:
		return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", "client_name must be at most "+strconv.Itoa(maxClientNameRunes)+" characters")
	case name == "":
		name = "Unnamed MCP client"
	}
	switch req.ApplicationType {
	case "", "native", "web":
	default:
		return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", `application_type must be "native" or "web"`)
	}
	if len(req.RedirectURIs) == 0 || len(req.RedirectURIs) > maxRedirectURIs {
		return nil, errorf(http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris must list 1 to "+strconv.Itoa(maxRedirectURIs)+" URIs")
	}
	for _, u := range req.RedirectURIs {
		if err := checkRedirectURI(u, req.ApplicationType); err != nil {
			return nil, err
		}
	}
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", `grant_types may hold "authorization_code" and "refresh_token" only`)
		}
	}
	if !slices.Contains(grants, "authorization_code") {
		return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", `grant_types must include "authorization_code"`)
	}
	for _, t := range req.ResponseTypes {
		if t != "code" {
			return nil, errorf(http.StatusBadRequest, "invalid_client_metadata", `response_types may hold "code" only`)
		}
	}
	return &registered{registration: registration{ClientName: name, RedirectURIs: req.RedirectURIs, GrantTypes: grants, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none", ApplicationType: req.ApplicationType}}, nil
}

// isBidi reports a character that changes how the text around it is
// shown without being seen: a Unicode format character (category Cf:
// U+200B, U+202E, U+2066, …) or a bidirectional control.
func isBidi(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r)
}

// privateSchemes are the private-use URI schemes (RFC 8252 7.1) of native
// MCP clients that do not use a reverse domain name; schemes with a dot
// (com.example.app) are accepted too.
var privateSchemes = []string{"cursor", "vscode", "vscode-insiders", "windsurf", "claude", "zed"}

// checkRedirectURI accepts https URIs, http URIs on a loopback host (any
// port: RFC 8252 7.3), and, for clients that are not "web" applications,
// private-use schemes (cursor://…, vscode://…, com.example.app:/cb). No
// fragment, no user information.
func checkRedirectURI(raw, applicationType string) *oauthError {
	bad := func(why string) *oauthError {
		return errorf(http.StatusBadRequest, "invalid_redirect_uri", "redirect URI "+strconv.Quote(clip(raw, 100))+" "+why)
	}
	if len(raw) > maxRedirectURIBytes || !utf8.ValidString(raw) || strings.ContainsFunc(raw, unicode.IsControl) {
		return bad("is too long or not printable")
	}
	if strings.ContainsFunc(raw, isBidi) {
		return bad("holds an invisible formatting or bidirectional character")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return bad("is not an absolute URI")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") || u.User != nil {
		return bad("must have no fragment and no user information")
	}
	if strings.ContainsFunc(u.Host, isBidi) {
		return bad("holds an invisible formatting or bidirectional character")
	}
	if isInstallerLink(u) {
		return bad("installs something when opened (cursor://anysphere.cursor-deeplink/…, vscode:mcp/install, a path or query naming an install or a deep link): the consent page does not send people to installers")
	}
	if _, ok := asciiHost(u.Host); !ok && (u.Scheme == "https" || u.Scheme == "http") {
		return bad("has a host that is not a valid domain name")
	}
	switch u.Scheme {
	case "https":
		if u.Hostname() == "" {
			return bad("has no host")
		}
	case "http":
		if !isLoopback(u.Hostname()) {
			return bad("must be https, or http on a loopback host (127.0.0.1, [::1], localhost)")
		}
	default:
		if applicationType == "web" {
			return bad(`must be https for a "web" application`)
		}
		if !strings.Contains(u.Scheme, ".") && !slices.Contains(privateSchemes, u.Scheme) {
			return bad("must be https, http on a loopback host, or a native app's private-use scheme (reverse domain name, or cursor, vscode, …)")
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether the redirect URI of an authorization
// request is one the client registered: the same string, or for http on
// a loopback host the same but for the port (RFC 8252 7.3).
func redirectMatches(registered []string, raw string) bool {
	if slices.Contains(registered, raw) {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) {
		return false
	}
	for _, r := range registered {
		v, err := url.Parse(r)
		if err == nil && v.Scheme == "http" && v.Hostname() == u.Hostname() && v.EscapedPath() == u.EscapedPath() &&
			v.RawQuery == u.RawQuery && v.User == nil && u.User == nil && v.Fragment == "" && u.Fragment == "" {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// register is the registration endpoint (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	refuse := func(e *oauthError) {
		s.cfg.Observer.OAuthRefused(e.Code)
		writeJSON(w, e.Status, e)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		refuse(errorf(http.StatusUnsupportedMediaType, "invalid_client_metadata", "send the client metadata as application/json"))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistrationBytes))
	if err != nil {
		refuse(errorf(http.StatusRequestEntityTooLarge, "invalid_client_metadata", "the client metadata must be at most 16 KiB"))
		return
	}
	reg, oerr := parseRegistration(body)
	if oerr != nil {
		refuse(oerr)
		return
	}
	ctx := r.Context()
	d, err := s.cfg.Limiter.Allow(ctx, "oauth-register:"+s.cfg.ClientIP(r), RegistrationsPerHour, mcpdir.RateWindow)
	if err == nil && !d.Allowed {
		w.Header().Set("Retry-After", strconv.Itoa(mcpdir.RetryAfterSeconds(d)))
		refuse(errorf(http.StatusTooManyRequests, "rate_limited", "too many registrations from this address: try again later"))
		return
	}
	now := s.now().UTC()
	reg.ClientID, reg.ClientIDIssuedAt = newSecret(clientPrefix), now.Unix()
	c := &mcpdir.OAuthClient{ID: reg.ClientID, Name: reg.ClientName, RedirectURIs: reg.RedirectURIs, CreatedAt: now,
		Network: clientnet.Network(s.cfg.ClientIP(r))}
	switch err := s.cfg.Store.CreateClient(ctx, c, mcpdir.ClientQuota{Max: s.cfg.MaxClients, PerNetwork: s.cfg.MaxClientsPerNetwork}); {
	case errors.Is(err, mcpdir.ErrNetworkFull):
		w.Header().Set("Retry-After", strconv.Itoa(int(UnusedClientTTL/time.Second)))
		refuse(errorf(http.StatusTooManyRequests, "rate_limited", "too many clients are registered from this network: use one you registered, or try again later"))
		return
	case errors.Is(err, mcpdir.ErrClientsFull):
		w.Header().Set("Retry-After", "3600")
		refuse(errorf(http.StatusServiceUnavailable, "temporarily_unavailable", "registration is not possible right now: try again later"))
		return
	case err != nil:
		s.cfg.Logger.ErrorContext(ctx, "oauth: register", "err", err)
		refuse(errorf(http.StatusServiceUnavailable, "temporarily_unavailable", "registration is not possible right now: try again later"))
		return
	}
	s.cfg.Observer.OAuthRegistered()
	writeJSON(w, http.StatusCreated, reg)
}
