package oauth

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mcpdir/mcpdir"
)

// tokenRequest is a checked token or revocation request.
type tokenRequest struct {
	GrantType, Code, RedirectURI, ClientID, Verifier, RefreshToken, Resource, Token string

	addr string // the client's address (a metadata-document client's limit is per address)
}

// tokenResponse is a successful token answer (RFC 6749 5.1).
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
}

var (
	errServer   = errorf(http.StatusServiceUnavailable, "temporarily_unavailable", "the directory cannot issue tokens right now: try again shortly")
	errBadGrant = errorf(http.StatusBadRequest, "invalid_grant", "the authorization code or refresh token is invalid, expired, used already or revoked")
)

// parseForm reads a form-encoded OAuth request body: one value per
// parameter, the client id from the body or from HTTP Basic
// authentication (a public client has no secret to send).
func parseForm(contentType string, body []byte, basicUser string) (url.Values, *oauthError) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, errorf(http.StatusBadRequest, "invalid_request", "send the parameters as application/x-www-form-urlencoded")
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "invalid_request", "the body is not a valid form")
	}
	for k, vs := range v {
		if len(vs) > 1 {
			return nil, errorf(http.StatusBadRequest, "invalid_request", "the parameter "+clip(k, 40)+" is given more than once")
		}
	}
	if id := v.Get("client_id"); basicUser != "" && id != "" && id != basicUser {
		return nil, errorf(http.StatusUnauthorized, "invalid_client", "client_id differs from the client authenticated")
	} else if id == "" {
		v.Set("client_id", basicUser)
	}
	return v, nil
}

// parseTokenRequest checks a token request (RFC 6749 4.1.3, 6).
func parseTokenRequest(contentType string, body []byte, basicUser string) (*tokenRequest, *oauthError) {
	v, oerr := parseForm(contentType, body, basicUser)
	if oerr != nil {
		return nil, oerr
	}
	req := &tokenRequest{GrantType: v.Get("grant_type"), Code: v.Get("code"), RedirectURI: v.Get("redirect_uri"), ClientID: v.Get("client_id"),
		Verifier: v.Get("code_verifier"), RefreshToken: v.Get("refresh_token"), Resource: v.Get("resource")}
	missing := func(p string) *oauthError {
		return errorf(http.StatusBadRequest, "invalid_request", p+" is required")
	}
	switch req.GrantType {
	case "authorization_code":
		switch {
		case req.Code == "":
			return nil, missing("code")
		case req.RedirectURI == "":
			return nil, missing("redirect_uri")
		case req.Verifier == "":
			return nil, missing("code_verifier (PKCE)")
		case len(req.Verifier) < 43 || len(req.Verifier) > 128 || strings.Trim(req.Verifier, base64URLChars+".~") != "":
			return nil, errorf(http.StatusBadRequest, "invalid_grant", "code_verifier must be 43 to 128 unreserved characters")
		}
	case "refresh_token":
		if req.RefreshToken == "" {
			return nil, missing("refresh_token")
		}
	case "":
		return nil, missing("grant_type")
	default:
		return nil, errorf(http.StatusBadRequest, "unsupported_grant_type", `grant_type must be "authorization_code" or "refresh_token"`)
	}
	if req.ClientID == "" {
		return nil, errorf(http.StatusUnauthorized, "invalid_client", "client_id is required")
	}
	if len(req.Code) > 256 || len(req.RefreshToken) > 256 || len(req.ClientID) > maxRedirectURIBytes || len(req.RedirectURI) > maxRedirectURIBytes {
		return nil, errBadGrant
	}
	return req, nil
}

// readBody reads a bounded form body and Basic authentication's user.
func readBody(w http.ResponseWriter, r *http.Request) (body []byte, basicUser string, oerr *oauthError) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxTokenRequestBytes))
	if err != nil {
		return nil, "", errorf(http.StatusRequestEntityTooLarge, "invalid_request", "the request body must be at most 16 KiB")
	}
	if user, _, ok := r.BasicAuth(); ok {
		if basicUser, err = url.QueryUnescape(user); err != nil {
			return nil, "", errorf(http.StatusUnauthorized, "invalid_client", "the Basic credentials are malformed")
		}
	}
	return body, basicUser, nil
}

// token is the token endpoint.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Pragma", "no-cache")
	addr := s.cfg.ClientIP(r)
	if d, err := s.cfg.Limiter.Allow(r.Context(), "oauth-token:"+addr, TokenRequestsPerMinute, time.Minute); err == nil && !d.Allowed {
		s.tooMany(w, d, "too many token requests from this address: try again later")
		return
	}
	body, user, oerr := readBody(w, r)
	var req *tokenRequest
	if oerr == nil {
		req, oerr = parseTokenRequest(r.Header.Get("Content-Type"), body, user)
	}
	if oerr == nil && !s.isResource(req.Resource) {
		oerr = errorf(http.StatusBadRequest, "invalid_target", "resource must be "+s.resource)
	}
	var resp *tokenResponse
	if oerr == nil {
		req.addr = addr
		if req.GrantType == "authorization_code" {
			resp, oerr = s.exchange(r.Context(), req)
		} else {
			resp, oerr = s.refresh(r.Context(), req)
		}
	}
	if oerr != nil {
		if oerr.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(oerr.retryAfter))
		}
		s.cfg.Observer.OAuthRefused(oerr.Code)
		if oerr.Status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="mcpdir"`)
		}
		writeJSON(w, oerr.Status, oerr)
		return
	}
	s.cfg.Observer.OAuthGranted(req.GrantType)
	writeJSON(w, http.StatusOK, resp)
}

// tooMany answers 429 with Retry-After.
func (s *Server) tooMany(w http.ResponseWriter, d mcpdir.RateDecision, why string) {
	w.Header().Set("Retry-After", strconv.Itoa(mcpdir.RetryAfterSeconds(d)))
	s.cfg.Observer.OAuthRefused("rate_limited")
	writeJSON(w, http.StatusTooManyRequests, errorf(http.StatusTooManyRequests, "rate_limited", why))
}

// spendClient counts a token request that brought a valid code or refresh
// token of its client, against the client's limit. Only those count: a
// client_id is no secret, and requests anyone can make with it must not
// use up its limit. A metadata document's client_id is shared by every
// installation of the app, so its limit is per client and address.
func (s *Server) spendClient(ctx context.Context, req *tokenRequest) *oauthError {
	key := "oauth-token-client:" + req.ClientID
	if IsDocumentURL(req.ClientID) {
		key += "|" + req.addr
	}
	d, err := s.cfg.Limiter.Allow(ctx, key, TokenRequestsPerMinute, time.Minute)
	if err != nil || d.Allowed {
		return nil
	}
	e := errorf(http.StatusTooManyRequests, "rate_limited", "too many token requests for this client: try again later")
	e.retryAfter = mcpdir.RetryAfterSeconds(d)
	return e
}

// trimGrants keeps an account's grants within MaxGrantsPerAccount once g
// is added, never revoking g: grants never used go first, the oldest
// first, then those unused for the longest.
func (s *Server) trimGrants(ctx context.Context, g *mcpdir.OAuthGrant) {
	grants, err := s.cfg.Store.Grants(ctx, g.AccountID)
	if err != nil || len(grants) <= MaxGrantsPerAccount {
		if err != nil {
			s.cfg.Logger.WarnContext(ctx, "oauth: list grants to bound them", "err", err)
		}
		return
	}
	lastUsed := func(x *mcpdir.OAuthGrant) time.Time {
		s.mu.Lock()
		defer s.mu.Unlock()
		if u := s.used[x.ID]; u.After(x.LastUsedAt) {
			return u
		}
		return x.LastUsedAt
	}
	grants = slices.DeleteFunc(grants, func(x *mcpdir.OAuthGrant) bool { return x.ID == g.ID })
	slices.SortStableFunc(grants, func(a, b *mcpdir.OAuthGrant) int {
		ua, ub := lastUsed(a), lastUsed(b)
		if ua.IsZero() != ub.IsZero() {
			if ua.IsZero() {
				return -1
			}
			return 1
		}
		if ua.IsZero() {
			return a.CreatedAt.Compare(b.CreatedAt)
		}
		return ua.Compare(ub)
	})
	for _, old := range grants[:len(grants)-(MaxGrantsPerAccount-1)] {
		if err := s.revokeGrant(ctx, old.ID); err != nil {
			s.cfg.Logger.WarnContext(ctx, "oauth: revoke a grant past the bound", "err", err)
		}
	}
}

// newTokens makes a grant's access and refresh tokens.
func (s *Server) newTokens(grantID string) (*tokenResponse, []*mcpdir.OAuthToken) {
	now := s.now()
	resp := &tokenResponse{AccessToken: newSecret(AccessPrefix), TokenType: "Bearer", ExpiresIn: int(AccessLifetime.Seconds()), RefreshToken: newSecret(RefreshPrefix)}
	a, r := hashOf(resp.AccessToken), hashOf(resp.RefreshToken)
	return resp, []*mcpdir.OAuthToken{
		{Hash: a[:], GrantID: grantID, ExpiresAt: now.Add(AccessLifetime)},
		{Hash: r[:], GrantID: grantID, Refresh: true, ExpiresAt: now.Add(RefreshIdle)},
	}
}

// exchange trades an authorization code for a new grant's tokens, once: a
// code used a second time revokes what the first use gave (RFC 9700).
func (s *Server) exchange(ctx context.Context, req *tokenRequest) (*tokenResponse, *oauthError) {
	h := hashOf(req.Code)
	code, err := s.cfg.Store.Code(ctx, h[:])
	if errors.Is(err, mcpdir.ErrNotFound) {
		return nil, errBadGrant
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: read code", "err", err)
		return nil, errServer
	}
	if code.GrantID != "" {
		return nil, s.reused(ctx, code.GrantID)
	}
	if !s.now().Before(code.ExpiresAt) || code.ClientID != req.ClientID || code.RedirectURI != req.RedirectURI || !pkceMatches(code.Challenge, req.Verifier) {
		return nil, errBadGrant
	}
	if oerr := s.activeAccount(ctx, code.AccountID); oerr != nil {
		return nil, oerr
	}
	if oerr := s.spendClient(ctx, req); oerr != nil {
		return nil, oerr
	}
	g := &mcpdir.OAuthGrant{ID: uuid.NewString(), ClientID: code.ClientID, ClientName: code.ClientName, AccountID: code.AccountID, CreatedAt: s.now().UTC()}
	resp, tokens := s.newTokens(g.ID)
	err = s.cfg.Store.RedeemCode(ctx, h[:], g, tokens...)
	if errors.Is(err, mcpdir.ErrNotFound) { // another exchange of the same code won
		if code, err = s.cfg.Store.Code(ctx, h[:]); err == nil && code.GrantID != "" {
			return nil, s.reused(ctx, code.GrantID)
		}
		return nil, errBadGrant
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: redeem code", "err", err)
		return nil, errServer
	}
	s.keep(hashOf(resp.AccessToken), g, tokens[0].ExpiresAt)
	s.trimGrants(ctx, g)
	return resp, nil
}

// reused revokes the grant a code gave when the code comes again.
func (s *Server) reused(ctx context.Context, grantID string) *oauthError {
	if err := s.revokeGrant(ctx, grantID); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: revoke the grant of a reused code", "err", err)
	}
	return errorf(http.StatusBadRequest, "invalid_grant", "the authorization code was used already: the tokens issued for it are revoked")
}

// refresh rotates a refresh token: a new access token and a new refresh
// token of the same grant (whose budget carries on); the grant's earlier
// access tokens end, and the old refresh token no longer works. A refresh
// token presented again after its rotation is a replay (OAuth 2.1 4.3.1,
// RFC 9700 4.14.2): someone else may hold it, so the whole grant is
// revoked. There is no grace period for a client's retry: only hashes of
// the new pair are kept, so it could not be answered again.
func (s *Server) refresh(ctx context.Context, req *tokenRequest) (*tokenResponse, *oauthError) {
	h := hashOf(req.RefreshToken)
	tok, g, err := s.cfg.Store.Token(ctx, h[:])
	if errors.Is(err, mcpdir.ErrNotFound) {
		return nil, errBadGrant
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: read refresh token", "err", err)
		return nil, errServer
	}
	if !tok.Refresh || !s.now().Before(tok.ExpiresAt) || g.Revoked() {
		return nil, errBadGrant
	}
	if !tok.RotatedAt.IsZero() {
		// Whoever presents it, with whichever client_id: it was stolen.
		return nil, s.replayed(ctx, g)
	}
	if g.ClientID != req.ClientID {
		return nil, errBadGrant
	}
	if oerr := s.activeAccount(ctx, g.AccountID); oerr != nil {
		if err := s.revokeGrant(ctx, g.ID); err != nil {
			s.cfg.Logger.ErrorContext(ctx, "oauth: revoke the grant of a disabled account", "err", err)
		}
		return nil, oerr
	}
	if oerr := s.spendClient(ctx, req); oerr != nil {
		return nil, oerr
	}
	resp, tokens := s.newTokens(g.ID)
	err = s.cfg.Store.RotateRefresh(ctx, h[:], s.now(), tokens...)
	if errors.Is(err, mcpdir.ErrNotFound) { // another refresh with the same token won
		if tok, g, err = s.cfg.Store.Token(ctx, h[:]); err == nil && !tok.RotatedAt.IsZero() {
			return nil, s.replayed(ctx, g)
		}
		return nil, errBadGrant
	}
	if err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: rotate refresh token", "err", err)
		return nil, errServer
	}
	s.Renewed(ctx, []string{g.ID})
	s.keep(hashOf(resp.AccessToken), g, tokens[0].ExpiresAt)
	return resp, nil
}

// replayed revokes a grant whose rotated refresh token came again.
func (s *Server) replayed(ctx context.Context, g *mcpdir.OAuthGrant) *oauthError {
	s.cfg.Logger.WarnContext(ctx, "oauth: a rotated refresh token was presented again: its grant is revoked", "grant", g.ID, "client_id", clip(g.ClientID, 200))
	if err := s.revokeGrant(ctx, g.ID); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "oauth: revoke the grant of a replayed refresh token", "err", err)
	}
	return errorf(http.StatusBadRequest, "invalid_grant", "the refresh token was used already: every token of its grant is revoked; authorize again")
}

// activeAccount refuses a code or a refresh of an account the operator
// disabled (or deleted): disabling revokes grants and deletes pending
// codes, and this holds whatever was in flight then.
func (s *Server) activeAccount(ctx context.Context, id string) *oauthError {
	a, err := s.cfg.Accounts.AccountByID(ctx, id)
	switch {
	case errors.Is(err, mcpdir.ErrNotFound) || err == nil && a.Disabled():
		return errorf(http.StatusBadRequest, "invalid_grant", "the account that allowed this app is disabled")
	case err != nil:
		s.cfg.Logger.ErrorContext(ctx, "oauth: read account", "err", err)
		return errServer
	}
	return nil
}

// revoke is the revocation endpoint (RFC 7009): a refresh or an access
// token ends its whole grant. An unknown token is no error.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	body, user, oerr := readBody(w, r)
	var v url.Values
	if oerr == nil {
		v, oerr = parseForm(r.Header.Get("Content-Type"), body, user)
	}
	if oerr == nil && v.Get("token") == "" {
		oerr = errorf(http.StatusBadRequest, "invalid_request", "token is required")
	}
	if oerr != nil {
		s.cfg.Observer.OAuthRefused(oerr.Code)
		writeJSON(w, oerr.Status, oerr)
		return
	}
	ctx := r.Context()
	h := hashOf(v.Get("token"))
	_, g, err := s.cfg.Store.Token(ctx, h[:])
	if err == nil {
		err = s.revokeGrant(ctx, g.ID)
	}
	if err != nil && !errors.Is(err, mcpdir.ErrNotFound) {
		s.cfg.Logger.ErrorContext(ctx, "oauth: revoke", "err", err)
		writeJSON(w, errServer.Status, errServer)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}
