package mcpdir

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Guard authenticates requests and spends budgets. REST and MCP share one,
// so that a key has one budget across both interfaces.
type Guard interface {
	// Authenticate takes the raw Authorization header value, "Bearer <key>"
	// or the bare key, and returns the key or one of ErrMissingKey,
	// ErrInvalidKey, ErrExpiredKey, ErrRevokedKey.
	Authenticate(ctx context.Context, authorization string) (*APIKey, error)
	// Spend counts one request against the key's budget.
	Spend(ctx context.Context, key *APIKey) (RateDecision, error)
	// Check reports whether a key authenticated earlier is still usable:
	// nil, or ErrRevokedKey, ErrExpiredKey or ErrInvalidKey. Long-lived
	// streams are checked with it.
	Check(key *APIKey) error
}

// MaxKeywordsBytes bounds the keywords of a search, on every interface.
const MaxKeywordsBytes = 1024

// ValidateKeywords checks free-text keywords from any interface (REST, MCP,
// the command line): valid UTF-8, no control characters, at most
// MaxKeywordsBytes, not blank. It returns them with surrounding space
// trimmed and inner runs of space folded to one.
func ValidateKeywords(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", Errorf(ECodeInvalidKeywords, "keywords must be valid UTF-8")
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", Errorf(ECodeInvalidKeywords, "keywords must not contain control characters (tabs, newlines, NUL, ESC, …)")
	}
	if len(s) > MaxKeywordsBytes {
		return "", Errorf(ECodeInvalidKeywords, "keywords must be at most %d bytes (got %d): use a few distinctive words", MaxKeywordsBytes, len(s))
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "", Errorf(ECodeMissingKeywords, "keywords must not be blank: pass search terms such as \"postgres\" or \"github issues\"")
	}
	return s, nil
}

// RateLimitedError says that the key's budget is spent and when to retry.
func RateLimitedError(d RateDecision) *Error {
	wait := RetryAfterSeconds(d)
	return Errorf(ECodeRateLimited, "rate limit of %d requests per hour exceeded: retry in %d seconds", d.Limit, wait)
}

// RetryAfterSeconds is the wait a refused request is told, in whole seconds
// rounded up (as Retry-After has them), at least 1.
func RetryAfterSeconds(d RateDecision) int { return max(1, ceilSeconds(d.RetryAfter)) }

func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}
