package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/web"
)

// client is a client as the authorization page knows it: registered, or
// named by its metadata document's URL (then Host is that URL's host).
type client struct {
	ID, Name, Host string
	RedirectURIs   []string
}

// authParams are the authorization request's parameters the consent form
// sends back.
var authParams = []string{"response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "state", "resource", "scope"}

// authRequest is a checked authorization request.
type authRequest struct {
	params      url.Values // authParams as given
	redirectURI string
	state       string
}

// pageError is a problem shown on a page: the client or its redirect URI
// cannot be trusted, so nothing is sent back to it.
type pageError struct {
	status         int
	title, message string
}

// client finds a client: its metadata document when the id is one's URL,
// else its registration.
func (s *Server) client(ctx context.Context, id string) (*client, *pageError) {
	if s.cfg.Documents != nil && IsDocumentURL(id) {
		c, err := s.cfg.Documents.Client(ctx, id)
		if err != nil {
			s.cfg.Logger.InfoContext(ctx, "oauth: client metadata document", "client_id", clip(id, 200), "err", err)
			return nil, &pageError{http.StatusBadRequest, "This app cannot connect",
				"Its client metadata document could not be used: " + err.Error()}
		}
		return c, nil
	}
	c, err := s.cfg.Store.Client(ctx, id)
	if errors.Is(err, mcpdir.ErrNotFound) {
		return nil, &pageError{http.StatusBadRequest, "This app cannot connect",
			"The directory does not know this app (client_id). Registrations no one used expire after an hour: ask the app to connect again."}
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: read client", "err", err)
		return nil, &pageError{http.StatusServiceUnavailable, "Try again shortly", "Connecting apps is not possible right now."}
	}
	return &client{ID: c.ID, Name: c.Name, RedirectURIs: c.RedirectURIs}, nil
}

// validate checks an authorization request. A problem with the client or
// its redirect URI is a page; any other problem goes back to the client's
// redirect URI (back), as OAuth has it.
func (s *Server) validate(ctx context.Context, v url.Values) (req *authRequest, c *client, back *oauthError, page *pageError) {
	for _, p := range authParams {
		if len(v[p]) > 1 {
			return nil, nil, nil, &pageError{http.StatusBadRequest, "Invalid request", "The parameter " + p + " is given more than once."}
		}
		if n := maxParamBytes(p); len(v.Get(p)) > n {
			return nil, nil, nil, &pageError{http.StatusBadRequest, "Invalid request", "The parameter " + p + " is longer than " + strconv.Itoa(n) + " bytes."}
		}
	}
	id := v.Get("client_id")
	if id == "" || len(id) > maxRedirectURIBytes {
		return nil, nil, nil, &pageError{http.StatusBadRequest, "Invalid request", "The request names no client (client_id)."}
	}
	if c, page = s.client(ctx, id); page != nil {
		return nil, nil, nil, page
	}
	redirect := v.Get("redirect_uri")
	if redirect == "" && len(c.RedirectURIs) == 1 {
		redirect = c.RedirectURIs[0]
	}
	if !redirectMatches(c.RedirectURIs, redirect) {
		return nil, nil, nil, &pageError{http.StatusBadRequest, "This app cannot connect",
			"The address it asks to return to (redirect_uri) is not one it registered."}
	}
	if u, err := url.Parse(redirect); err != nil || isInstallerLink(u) {
		// Registered before installer links were refused (issue 33).
		return nil, nil, nil, &pageError{http.StatusBadRequest, "This app cannot connect",
			"The address it asks to return to (redirect_uri) would install something on this computer rather than return to the app: the directory does not send you there."}
	}
	req = &authRequest{params: url.Values{}, redirectURI: redirect, state: v.Get("state")}
	for _, p := range authParams {
		if x := v.Get(p); x != "" {
			req.params.Set(p, x)
		}
	}
	req.params.Set("redirect_uri", redirect)
	challenge := v.Get("code_challenge")
	switch {
	case v.Get("response_type") != "code":
		return req, c, errorf(0, "unsupported_response_type", `response_type must be "code"`), nil
	case challenge == "" || v.Get("code_challenge_method") != "S256":
		return req, c, errorf(0, "invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256"), nil
	case len(challenge) != 43 || strings.Trim(challenge, base64URLChars) != "":
		return req, c, errorf(0, "invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)"), nil
	case !s.isResource(v.Get("resource")):
		return req, c, errorf(0, "invalid_target", "resource must be "+s.resource), nil
	}
	return req, c, nil, nil
}

// maxParamBytes bounds each parameter of an authorization request: they
// are echoed (state to the client, all of them into the login page's
// link and the consent form), so none may be large.
func maxParamBytes(p string) int {
	switch p {
	case "state", "scope":
		return maxStateBytes
	case "client_id", "redirect_uri", "resource":
		return maxRedirectURIBytes
	}
	return 128 // response_type, code_challenge, code_challenge_method
}

const base64URLChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// isResource reports whether a resource parameter names this server's MCP
// endpoint, or is absent (the resource is then that endpoint, the only one).
func (s *Server) isResource(r string) bool {
	return r == "" || r == s.resource || r == s.resource+"/"
}

// authorize is the authorization endpoint: the consent page for a signed-in
// person, the login page first for anyone else.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	req, c, back, page := s.validate(r.Context(), r.URL.Query())
	if !s.answered(w, r, req, c, back, page, http.StatusFound) {
		return
	}
	if s.cfg.Pages.SignedIn(r) == nil {
		http.Redirect(w, r, "/login?"+url.Values{"next": {"/oauth/authorize?" + req.params.Encode()}}.Encode(), http.StatusSeeOther)
		return
	}
	consent := &web.Consent{ClientName: c.Name, RedirectOrigin: formTarget(req.redirectURI), Budget: mcpdir.DefaultRateLimit}
	consent.ReturnTo, consent.ReturnToNotASCII = shownHost(req.redirectURI)
	consent.ReturnToApp = appScheme(req.redirectURI)
	if c.Host != "" {
		consent.ClientHost, consent.ClientHostNotASCII = shownHost("https://" + c.Host)
	}
	for _, p := range authParams {
		if x := req.params.Get(p); x != "" {
			consent.Fields = append(consent.Fields, web.Field{Name: p, Value: x})
		}
	}
	s.cfg.Pages.ShowConsent(w, r, consent)
}

// answered writes the answer to a request that validate refused, and
// reports whether there was none to write.
func (s *Server) answered(w http.ResponseWriter, r *http.Request, req *authRequest, c *client, back *oauthError, page *pageError, status int) bool {
	switch {
	case page != nil:
		s.cfg.Observer.OAuthRefused("invalid_client")
		w.Header().Set("Cache-Control", "no-store")
		s.cfg.Pages.Message(w, r, page.status, page.title, page.message)
		return false
	case back != nil && !mayRedirectErrors(c, req.redirectURI):
		// Anyone can register any redirect URI: sending an error there
		// before a person has seen the consent page would make the
		// directory an open redirector (RFC 9700 4.11.2).
		s.cfg.Observer.OAuthRefused(back.Code)
		w.Header().Set("Cache-Control", "no-store")
		s.cfg.Pages.Message(w, r, http.StatusBadRequest, "This app's request cannot be used",
			"The app that sent you here ("+hostText(req.redirectURI)+") asked for something the directory cannot give: "+
				back.Description+" ("+back.Code+"). Nothing was sent back to it: return to the app and try connecting again.")
		return false
	case back != nil:
		s.cfg.Observer.OAuthRefused(back.Code)
		s.redirectBack(w, r, req, url.Values{"error": {back.Code}, "error_description": {back.Description}}, status)
		return false
	}
	return true
}

// mayRedirectErrors reports whether an invalid request may be answered by
// a redirect to the client: only for a client that named itself by its
// metadata document, and only to where that document's own host (which
// the link to the directory shows) or the person's own machine leads: a
// loopback address or an app's private-use scheme.
func mayRedirectErrors(c *client, redirect string) bool {
	if c == nil || c.Host == "" {
		return false
	}
	u, err := url.Parse(redirect)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return strings.EqualFold(u.Host, c.Host)
	case "http":
		return isLoopback(u.Hostname())
	}
	return true // a private-use scheme, checked at registration
}

// decide takes the person's answer on the consent page.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.cfg.Pages.Message(w, r, http.StatusBadRequest, "Invalid request", "The form could not be read.")
		return
	}
	ctx := r.Context()
	req, c, back, page := s.validate(ctx, r.PostForm)
	if !s.answered(w, r, req, c, back, page, http.StatusSeeOther) {
		return
	}
	a := s.cfg.Pages.SignedIn(r)
	if a == nil {
		http.Redirect(w, r, "/login?"+url.Values{"next": {"/oauth/authorize?" + req.params.Encode()}}.Encode(), http.StatusSeeOther)
		return
	}
	switch r.PostForm.Get("decision") {
	case "allow":
	case "deny":
		s.cfg.Observer.OAuthAuthorized(false)
		s.redirectBack(w, r, req, url.Values{"error": {"access_denied"}, "error_description": {"the person denied access"}}, http.StatusSeeOther)
		return
	default:
		s.cfg.Pages.Message(w, r, http.StatusBadRequest, "Invalid request", "Choose Allow or Deny.")
		return
	}
	code := rand.Text()
	h := hashOf(code)
	err := s.cfg.Store.CreateCode(ctx, &mcpdir.OAuthCode{Hash: h[:], ClientID: c.ID, ClientName: c.Name, AccountID: a.ID,
		RedirectURI: req.redirectURI, Challenge: req.params.Get("code_challenge"), ExpiresAt: s.now().Add(CodeLifetime)})
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: create code", "err", err)
		s.redirectBack(w, r, req, url.Values{"error": {"temporarily_unavailable"}, "error_description": {"try again shortly"}}, http.StatusSeeOther)
		return
	}
	s.cfg.Observer.OAuthAuthorized(true)
	s.redirectBack(w, r, req, url.Values{"code": {code}}, http.StatusSeeOther)
}

// redirectBack sends the browser to the client's redirect URI with params,
// the request's state and the issuer (RFC 9207).
func (s *Server) redirectBack(w http.ResponseWriter, r *http.Request, req *authRequest, params url.Values, status int) {
	u, _ := url.Parse(req.redirectURI) // checked at registration
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	q.Set("iss", s.issuer)
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), status)
}

// formTarget is the Content-Security-Policy source of a redirect URI, for
// the consent form's form-action: its origin, or its scheme for a
// private-use scheme (and for an IPv6 literal, which CSP cannot name).
func formTarget(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return ""
	}
	src := u.Scheme + ":"
	if (u.Scheme == "http" || u.Scheme == "https") && !strings.Contains(u.Host, "[") {
		host, ok := asciiHost(u.Host) // CSP sources are ASCII
		if !ok {
			return ""
		}
		src = u.Scheme + "://" + host
	}
	if strings.ContainsAny(src, " ;,'\"\t\r\n") {
		return ""
	}
	return src
}

// pkceMatches checks a code verifier against the S256 challenge.
func pkceMatches(challenge, verifier string) bool {
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}
