package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
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
}

// New returns a Service over the key store and limiter. Call Load before use.
func New(store mcpdir.KeyStore, limiter mcpdir.RateLimiter, logger *slog.Logger) *Service {
	return &Service{store: store, limiter: limiter, logger: logger, now: time.Now,
		keys: map[string]*mcpdir.APIKey{}, used: map[string]time.Time{}}
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
	}
	return nil
}

// Authenticate returns the key an Authorization header value carries, or
// one of mcpdir.ErrMissingKey, ErrInvalidKey, ErrExpiredKey, ErrRevokedKey.
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
		// A key made a moment ago by another process may not have reached us
		// through the change feed yet. Only well-formed keys (checksum
		// passed) get this far, so guessing cannot turn it into a flood of
		// lookups.
		var err error
		if k, err = s.store.KeyByPrefix(ctx, prefix); errors.Is(err, mcpdir.ErrNotFound) {
			return nil, mcpdir.ErrInvalidKey
		} else if err != nil {
			return nil, fmt.Errorf("authenticate: %w", err)
		}
		s.mu.Lock()
		s.keys[prefix] = k
		s.mu.Unlock()
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
	}
	s.usedMu.Lock()
	s.used[k.Prefix] = now
	s.usedMu.Unlock()
	return k, nil
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
