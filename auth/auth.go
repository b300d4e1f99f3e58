package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Service authenticates requests and spends rate-limit budgets.
type Service struct {
	store   mcpdir.KeyStore
	limiter mcpdir.RateLimiter
	logger  *slog.Logger
	now     func() time.Time

	mu   sync.RWMutex
	keys map[string]*mcpdir.APIKey // by public id

	usedMu sync.Mutex
	used   map[string]time.Time // last-used times not yet written

	// Prefixes looked up in the store and not found, with when: a key with
	// a valid checksum that does not exist would otherwise cost a store
	// lookup on every request. lookups bounds the store lookups of unknown
	// keys, however many distinct ones arrive.
	missMu  sync.Mutex
	missing map[string]time.Time
	lookups tokenBucket
}

// Bounds on lookups of keys the server does not know. A key made by
// another process reaches the server through the change feed (which also
// forgets its miss) within its interval; the lookup only covers that gap.
const (
	missTTL        = 30 * time.Second
	maxMisses      = 10_000
	lookupsPerSec  = 50
	lookupsInBurst = 50
)

// New returns a Service over the key store and limiter. Call Load before use.
func New(store mcpdir.KeyStore, limiter mcpdir.RateLimiter, logger *slog.Logger) *Service {
	return &Service{store: store, limiter: limiter, logger: logger, now: time.Now,
		keys: map[string]*mcpdir.APIKey{}, used: map[string]time.Time{}, missing: map[string]time.Time{},
		lookups: tokenBucket{rate: lookupsPerSec, burst: lookupsInBurst, tokens: lookupsInBurst}}
}

// Load reads every key from the store into memory.
func (s *Service) Load(ctx context.Context) error {
	all, err := s.store.Keys(ctx)
	if err != nil {
		return fmt.Errorf("load keys: %w", err)
	}
	m := make(map[string]*mcpdir.APIKey, len(all))
	for _, k := range all {
		m[k.Prefix] = k
	}
	s.mu.Lock()
	s.keys = m
	s.mu.Unlock()
	return nil
}

// Refresh re-reads the given keys from the store: the change feed calls it
// when keys are created or revoked elsewhere.
func (s *Service) Refresh(ctx context.Context, prefixes []string) error {
	for _, p := range prefixes {
		k, err := s.store.KeyByPrefix(ctx, p)
		if errors.Is(err, mcpdir.ErrNotFound) {
			s.mu.Lock()
			delete(s.keys, p)
			s.mu.Unlock()
			continue
		}
		if err != nil {
			return fmt.Errorf("refresh key %s: %w", p, err)
		}
		s.mu.Lock()
		s.keys[p] = k
		s.mu.Unlock()
		s.missMu.Lock()
		delete(s.missing, p)
		s.missMu.Unlock()
	}
	return nil
}

// Authenticate returns the key an Authorization header value carries, or
// one of mcpdir.ErrMissingKey, ErrInvalidKey, ErrExpiredKey, ErrRevokedKey,
// ErrDisabledKey (its account is disabled).
func (s *Service) Authenticate(ctx context.Context, authorization string) (*mcpdir.APIKey, error) {
	token := TokenFromHeader(authorization)
	if token == "" {
		return nil, mcpdir.ErrMissingKey
	}
	if !WellFormed(token) {
		return nil, mcpdir.ErrInvalidKey
	}
	prefix := PublicID(token)
	s.mu.RLock()
	k := s.keys[prefix]
	s.mu.RUnlock()
	if k == nil {
		var err error
		if k, err = s.lookup(ctx, prefix); err != nil {
			return nil, err
		}
	}
	if subtle.ConstantTimeCompare(Hash(token), k.Hash) != 1 {
		return nil, mcpdir.ErrInvalidKey
	}
	now := s.now()
	switch {
	case k.Revoked():
		return nil, mcpdir.ErrRevokedKey
	case k.Expired(now):
		return nil, mcpdir.ErrExpiredKey
	case k.OwnerDisabled:
		return nil, mcpdir.ErrDisabledKey
	}
	s.usedMu.Lock()
	s.used[k.Prefix] = now
	s.usedMu.Unlock()
	if info := mcpdir.RequestInfoFrom(ctx); info != nil {
		info.KeyPrefix = k.Prefix
	}
	return k, nil
}

// lookup reads a key the server does not know from the store: one made a
// moment ago by another process may not have reached it through the change
// feed yet. Only well-formed keys (checksum passed) get this far, and a
// miss is remembered, so neither guessing nor repeating an unknown key
// turns into a flood of lookups.
func (s *Service) lookup(ctx context.Context, prefix string) (*mcpdir.APIKey, error) {
	now := s.now()
	s.missMu.Lock()
	missed, known := s.missing[prefix]
	ok := (!known || now.Sub(missed) > missTTL) && s.lookups.take(now)
	s.missMu.Unlock()
	if !ok {
		return nil, mcpdir.ErrInvalidKey
	}
	k, err := s.store.KeyByPrefix(ctx, prefix)
	if errors.Is(err, mcpdir.ErrNotFound) {
		s.missMu.Lock()
		if len(s.missing) >= maxMisses {
			clear(s.missing)
		}
		s.missing[prefix] = now
		s.missMu.Unlock()
		return nil, mcpdir.ErrInvalidKey
	}
	if err != nil {
		// The store is down: the key may well exist. Keys already known
		// keep working; this one cannot be checked until it is back.
		s.logger.DebugContext(ctx, "look up an API key", "err", err) // the store watcher logs the outage once
		return nil, mcpdir.Errorf(mcpdir.ECodeUnavailable, "the API key could not be checked right now: try again shortly")
	}
	s.mu.Lock()
	s.keys[prefix] = k
	s.mu.Unlock()
	return k, nil
}

// tokenBucket allows rate events a second, burst at once. Not safe for
// concurrent use: the caller locks.
type tokenBucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func (b *tokenBucket) take(now time.Time) bool {
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Check reports whether a key authenticated earlier is still usable: nil,
// or ErrRevokedKey, ErrExpiredKey, ErrDisabledKey or ErrInvalidKey (gone
// from the store).
// Open streams are checked with it, so that a revocation ends them.
func (s *Service) Check(k *mcpdir.APIKey) error {
	s.mu.RLock()
	cur := s.keys[k.Prefix]
	s.mu.RUnlock()
	switch {
	case cur == nil:
		return mcpdir.ErrInvalidKey
	case cur.Revoked():
		return mcpdir.ErrRevokedKey
	case cur.Expired(s.now()):
		return mcpdir.ErrExpiredKey
	case cur.OwnerDisabled:
		return mcpdir.ErrDisabledKey
	}
	return nil
}

// AdminRateLimit is an admin key's budget of admin calls per RateWindow,
// apart from its search budget: curating entries is not searching.
const AdminRateLimit = 600

// SpendAdmin counts one admin call against the key's admin budget. Keys
// without a search limit have none here either.
func (s *Service) SpendAdmin(ctx context.Context, k *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	if k.RateLimit == mcpdir.Unlimited {
		return mcpdir.RateDecision{Allowed: true, Limit: mcpdir.Unlimited}, nil
	}
	d, err := s.limiter.Allow(ctx, "admin:"+k.Prefix, AdminRateLimit, mcpdir.RateWindow)
	if err != nil {
		return d, fmt.Errorf("rate limit: %w", err)
	}
	return d, nil
}

// Spend counts one request against the key's budget.
func (s *Service) Spend(ctx context.Context, k *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	if k.RateLimit == mcpdir.Unlimited {
		return mcpdir.RateDecision{Allowed: true, Limit: mcpdir.Unlimited}, nil
	}
	d, err := s.limiter.Allow(ctx, k.Prefix, k.RateLimit, mcpdir.RateWindow)
	if err != nil {
		return d, fmt.Errorf("rate limit: %w", err)
	}
	return d, nil
}

// KeysOf returns the keys an account owns, newest first, as this process
// knows them.
func (s *Service) KeysOf(owner string) []*mcpdir.APIKey {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*mcpdir.APIKey
	for _, k := range s.keys {
		if owner != "" && k.Owner == owner {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b *mcpdir.APIKey) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out
}

// Used is how many requests a key made in the current window, when the
// limiter can tell without counting one.
func (s *Service) Used(ctx context.Context, k *mcpdir.APIKey) (int, bool) {
	p, ok := s.limiter.(interface {
		Peek(ctx context.Context, key string, limit int, window time.Duration) mcpdir.RateDecision
	})
	if !ok || k.RateLimit == mcpdir.Unlimited {
		return 0, false
	}
	d := p.Peek(ctx, k.Prefix, k.RateLimit, mcpdir.RateWindow)
	return k.RateLimit - d.Remaining, true
}

// Add makes this process know a key created here at once.
func (s *Service) Add(k *mcpdir.APIKey) {
	s.mu.Lock()
	s.keys[k.Prefix] = k
	s.mu.Unlock()
}

// Revoke revokes a key and makes this process refuse it at once.
func (s *Service) Revoke(ctx context.Context, prefix string) error {
	if err := s.store.RevokeKey(ctx, prefix, s.now()); err != nil {
		return err
	}
	return s.Refresh(ctx, []string{prefix})
}

// FlushLastUsed writes the last-used times gathered since the last flush.
func (s *Service) FlushLastUsed(ctx context.Context) error {
	s.usedMu.Lock()
	batch := s.used
	s.used = map[string]time.Time{}
	s.usedMu.Unlock()
	if err := s.store.TouchKeys(ctx, batch); err != nil {
		// Put them back (unless newer ones arrived) so the next flush retries.
		s.usedMu.Lock()
		for p, t := range batch {
			if t.After(s.used[p]) {
				s.used[p] = t
			}
		}
		s.usedMu.Unlock()
		return err
	}
	return nil
}

// RunFlusher writes last-used times every interval until ctx ends, and once
// more on the way out.
func (s *Service) RunFlusher(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := s.FlushLastUsed(context.WithoutCancel(ctx)); err != nil {
				s.logger.Error("write last-used times", "err", err)
			}
			return
		case <-t.C:
			if err := s.FlushLastUsed(ctx); err != nil {
				s.logger.Warn("write last-used times", "err", err)
			}
		}
	}
}
