package oauth

import (
	"context"
	"errors"
	"maps"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/clientnet"
	"github.com/mcpdir/mcpdir/web"
)

// Token errors: the codes of the key errors, so that every interface
// answers them alike (401 with a Bearer challenge), in words for tokens.
var (
	errInvalidToken = &mcpdir.Error{Code: mcpdir.ECodeInvalidKey, Message: "the access token is not valid: sign in again"}
	errExpiredToken = &mcpdir.Error{Code: mcpdir.ECodeExpiredKey, Message: "the access token has expired: refresh it"}
	errRevokedToken = &mcpdir.Error{Code: mcpdir.ECodeRevokedKey, Message: "the access was revoked: connect the app again"}
)

// Guard returns keys with access tokens as a second way in: a token starting
// with AccessPrefix is checked here, anything else by keys. A token's
// requests spend its grant's budget through keys.Spend, under the key id
// "oauth:GRANT".
func (s *Server) Guard(keys mcpdir.Guard) mcpdir.Guard { return &guard{Guard: keys, s: s} }

type guard struct {
	mcpdir.Guard
	s *Server
}

func (g *guard) Authenticate(ctx context.Context, authorization string) (*mcpdir.APIKey, error) {
	if token := auth.TokenFromHeader(authorization); strings.HasPrefix(token, AccessPrefix) {
		return g.s.authenticate(ctx, token)
	}
	return g.Guard.Authenticate(ctx, authorization)
}

// Check reports whether a grant is still allowed: an open session or
// stream ends with its grant. The access token's own expiry is checked on
// each request, so that a client that refreshed keeps its session.
func (g *guard) Check(k *mcpdir.APIKey) error {
	id, ok := strings.CutPrefix(k.Prefix, grantKeyPrefix)
	if !ok {
		return g.Guard.Check(k)
	}
	g.s.mu.Lock()
	_, gone := g.s.gone[id]
	g.s.mu.Unlock()
	if gone {
		return errRevokedToken
	}
	return nil
}

// grantKey is the key a grant's requests carry.
func grantKey(g *mcpdir.OAuthGrant, expires time.Time) *mcpdir.APIKey {
	return &mcpdir.APIKey{Prefix: grantKeyPrefix + g.ID, Name: g.ClientName, ClientID: g.ClientID, Scope: mcpdir.ScopeSearch, Owner: g.AccountID,
		RateLimit: mcpdir.DefaultRateLimit, CreatedAt: g.CreatedAt, ExpiresAt: expires}
}

// authenticate checks an access token: in memory once seen, in the store
// the first time (on any replica: tokens are in the shared store).
func (s *Server) authenticate(ctx context.Context, token string) (*mcpdir.APIKey, error) {
	if len(token) > 128 {
		return nil, errInvalidToken
	}
	h := hashOf(token)
	s.mu.Lock()
	k := s.cache[h]
	s.mu.Unlock()
	if k == nil {
		if !s.mayLookUp(ctx) {
			return nil, errTooManyLookups
		}
		t, g, err := s.cfg.Store.Token(ctx, h[:])
		switch {
		case errors.Is(err, mcpdir.ErrNotFound) || err == nil && t.Refresh:
			return nil, errInvalidToken
		case err != nil:
			s.cfg.Logger.DebugContext(ctx, "oauth: look up an access token", "err", err)
			return nil, mcpdir.Errorf(mcpdir.ECodeUnavailable, "the access token could not be checked right now: try again shortly")
		case g.Revoked():
			return nil, errRevokedToken
		}
		k = s.keep(h, g, t.ExpiresAt)
	}
	now := s.now()
	id := strings.TrimPrefix(k.Prefix, grantKeyPrefix)
	s.mu.Lock()
	_, gone := s.gone[id]
	if gone || k.Expired(now) {
		delete(s.cache, h)
	} else {
		s.used[id] = now
	}
	s.mu.Unlock()
	switch {
	case gone:
		return nil, errRevokedToken
	case k.Expired(now):
		return nil, errExpiredToken
	}
	if info := mcpdir.RequestInfoFrom(ctx); info != nil {
		info.KeyPrefix = k.Prefix
	}
	return k, nil
}

// keep remembers an access token of a grant: the replica that issues a
// token keeps it at once, others after their first store read.
func (s *Server) keep(h [32]byte, g *mcpdir.OAuthGrant, expires time.Time) *mcpdir.APIKey {
	k := grantKey(g, expires)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cache) >= maxCachedAccessTokens {
		clear(s.cache)
	}
	s.cache[h] = k
	return k
}

// MaxLookupsPerSecond bounds the store lookups of access tokens this
// replica has not seen, per client address (an IPv6 address by its /64):
// made-up tokens cannot become a flood of database reads, and one
// network's made-up tokens cannot spend another's lookups. A token is
// looked up once, then kept in memory; its issuing replica never looks
// it up.
const MaxLookupsPerSecond = 20

// maxLookupWindows bounds the addresses counted at once.
const maxLookupWindows = 10_000

var errTooManyLookups = mcpdir.Errorf(mcpdir.ECodeUnavailable, "too many new access tokens at once from this address: try again in a second")

// lookupWindow counts one address's lookups in the second since since.
type lookupWindow struct {
	since time.Time
	n     int
}

// mayLookUp counts a lookup in the current second for the request's
// client address, if there is room.
func (s *Server) mayLookUp(ctx context.Context) bool {
	var addr string
	if info := mcpdir.RequestInfoFrom(ctx); info != nil {
		addr = clientnet.Key(info.ClientAddr)
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lookups) >= maxLookupWindows {
		maps.DeleteFunc(s.lookups, func(_ string, w *lookupWindow) bool { return now.Sub(w.since) >= time.Second })
		if len(s.lookups) >= maxLookupWindows { // that many addresses in one second: start again
			clear(s.lookups)
		}
	}
	w := s.lookups[addr]
	if w == nil {
		w = &lookupWindow{since: now}
		s.lookups[addr] = w
	}
	if now.Sub(w.since) >= time.Second || now.Before(w.since) {
		w.since, w.n = now, 0
	}
	w.n++
	return w.n <= MaxLookupsPerSecond
}

// Forget makes this replica refuse the tokens of grants revoked elsewhere
// at once: the change feed calls it.
func (s *Server) Forget(_ context.Context, grantIDs []string) error {
	if len(grantIDs) == 0 {
		return nil
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range grantIDs {
		s.gone[id] = now
	}
	maps.DeleteFunc(s.cache, func(_ [32]byte, k *mcpdir.APIKey) bool {
		_, gone := s.gone[strings.TrimPrefix(k.Prefix, grantKeyPrefix)]
		return gone
	})
	return nil
}

// Renewed drops from memory the access tokens of grants refreshed here or
// elsewhere (the change feed calls it): a refresh deletes a grant's earlier
// access tokens from the store, and the next use of one reads the store.
func (s *Server) Renewed(_ context.Context, grantIDs []string) error {
	if len(grantIDs) == 0 {
		return nil
	}
	renewed := make(map[string]bool, len(grantIDs))
	for _, id := range grantIDs {
		renewed[grantKeyPrefix+id] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.cache, func(_ [32]byte, k *mcpdir.APIKey) bool { return renewed[k.Prefix] })
	return nil
}

// revokeGrant revokes a grant in the store (the change feed tells other
// replicas) and here at once.
func (s *Server) revokeGrant(ctx context.Context, id string) error {
	if err := s.cfg.Store.RevokeGrant(ctx, id, s.now()); err != nil {
		return err
	}
	return s.Forget(ctx, []string{id})
}

// Apps lists the clients an account allowed, for the API Keys page.
func (s *Server) Apps(ctx context.Context, accountID string) ([]web.App, error) {
	grants, err := s.cfg.Store.Grants(ctx, accountID)
	if err != nil {
		return nil, err
	}
	out := make([]web.App, 0, len(grants))
	for _, g := range grants {
		app := web.App{ID: g.ID, Name: g.ClientName, Allowed: g.CreatedAt, LastUsed: g.LastUsedAt, Limit: mcpdir.DefaultRateLimit}
		s.mu.Lock()
		if t := s.used[g.ID]; t.After(app.LastUsed) {
			app.LastUsed = t
		}
		s.mu.Unlock()
		app.Used, _ = s.cfg.Budgets.Used(ctx, grantKey(g, time.Time{}))
		out = append(out, app)
	}
	return out, nil
}

// RevokeApp revokes one of an account's grants.
func (s *Server) RevokeApp(ctx context.Context, accountID, id string) error {
	g, err := s.cfg.Store.Grant(ctx, id)
	if err != nil {
		return err
	}
	if g.AccountID != accountID || g.Revoked() {
		return mcpdir.ErrNotFound
	}
	return s.revokeGrant(ctx, id)
}

// Sweep deletes expired codes and tokens and unused registrations from the
// store: once for the whole service (package jobs runs it on one replica,
// every SweepEvery).
func (s *Server) Sweep(ctx context.Context) {
	now := s.now()
	if err := s.cfg.Store.SweepOAuth(ctx, now, now.Add(-UnusedClientTTL)); err != nil && ctx.Err() == nil {
		s.cfg.Logger.WarnContext(ctx, "oauth: sweep", "err", err)
	}
}

// ForgetRevocations drops the revocations this replica remembers that are
// older than any access token: on every replica.
func (s *Server) ForgetRevocations(context.Context) {
	now := s.now()
	s.mu.Lock()
	maps.DeleteFunc(s.gone, func(_ string, at time.Time) bool { return now.Sub(at) > AccessLifetime })
	s.mu.Unlock()
}

// Flush writes the grants' last-used times this replica holds (package
// jobs runs it every few seconds and when the service stops).
func (s *Server) Flush(ctx context.Context) {
	s.mu.Lock()
	batch := s.used
	s.used = map[string]time.Time{}
	s.mu.Unlock()
	if err := s.cfg.Store.TouchGrants(ctx, batch); err != nil {
		s.cfg.Logger.WarnContext(ctx, "oauth: write last-used times", "err", err)
		s.mu.Lock()
		for id, t := range batch {
			if t.After(s.used[id]) {
				s.used[id] = t
			}
		}
		s.mu.Unlock()
	}
}
