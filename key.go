package mcpdir

import "time"

// Scope is what an API key may do.
type Scope string

const (
	ScopeSearch Scope = "search" // search and read the directory
	ScopeAdmin  Scope = "admin"  // everything, including managing keys and entries
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return s == ScopeSearch || s == ScopeAdmin }

// DefaultRateLimit is the spec's budget: 20 requests per hour per key.
const DefaultRateLimit = 20

// RateWindow is the rolling window every per-key budget is counted over.
const RateWindow = time.Hour

// Unlimited as a key's RateLimit means no budget at all.
const Unlimited = -1

// APIKey is the stored form of a key: never the secret itself, only its hash.
type APIKey struct {
	// Prefix is the key's public identifier, the start of the secret that is
	// safe to show and log (e.g. "mcpd_Ab12Cd34"). Unique.
	Prefix string
	Name   string
	Scope  Scope
	// Owner is the id of the account the key belongs to; empty for keys
	// made by the operator with the CLI.
	Owner string
	// ClientID is the OAuth app's client id when the key stands for an
	// access token (package oauth); empty for keys.
	ClientID string
	// Hash is SHA-256 of the whole secret. A 128-bit random secret needs no
	// slow hash: it cannot be guessed, only stolen.
	Hash []byte
	// RateLimit is requests per RateWindow; Unlimited for none.
	RateLimit  int
	CreatedAt  time.Time
	ExpiresAt  time.Time // zero: never
	LastUsedAt time.Time // zero: never used
	RevokedAt  time.Time // zero: not revoked
	// OwnerDisabled says the account that owns the key is disabled: the
	// key authenticates no more until the account is enabled again. The
	// store fills it from the account; it is not the key's own state.
	OwnerDisabled bool
}

// Expired reports whether the key has expired at now.
func (k *APIKey) Expired(now time.Time) bool {
	return !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)
}

// Revoked reports whether the key has been revoked.
func (k *APIKey) Revoked() bool { return !k.RevokedAt.IsZero() }

// RateDecision is a rate limiter's answer for one request.
type RateDecision struct {
	Allowed   bool
	Limit     int           // the budget per window; Unlimited for none
	Remaining int           // what is left after this request
	Reset     time.Duration // until the oldest counted request leaves the window
	// RetryAfter is how long to wait before a request can pass; zero when allowed.
	RetryAfter time.Duration
}
