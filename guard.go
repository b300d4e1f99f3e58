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

// MaxKeywordsBytes bounds the keywords a search is given, on every
// interface: room for an agent's task pasted whole, line breaks and all.
// Longer keywords are refused.
const MaxKeywordsBytes = 8192

// SearchedKeywordsBytes is how much of the keywords is searched: a task of
// 200 words in about 1,300 bytes fits, and what is past it is cut between
// words, so that no search, cache key or log line costs more than it.
const SearchedKeywordsBytes = 2048

// ValidateKeywords checks free-text keywords from any interface (REST, MCP,
// the command line): valid UTF-8, no control characters but white space
// (tabs and line breaks are spaces), at most MaxKeywordsBytes, not blank.
// It returns them with surrounding space trimmed, inner runs of space
// folded to one, and cut to SearchedKeywordsBytes between words: what is
// searched, and echoed.
func ValidateKeywords(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", Errorf(ECodeInvalidKeywords, "keywords must be valid UTF-8")
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && !unicode.IsSpace(r) }) >= 0 {
		return "", Errorf(ECodeInvalidKeywords, "keywords must not contain control characters (NUL, ESC, …)")
	}
	if len(s) > MaxKeywordsBytes {
		return "", Errorf(ECodeInvalidKeywords, "keywords must be at most %d bytes (got %d): the first %d are searched", MaxKeywordsBytes, len(s), SearchedKeywordsBytes)
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "", Errorf(ECodeMissingKeywords, "keywords must not be blank: pass search terms such as \"postgres\" or \"github issues\"")
	}
	return cutBetweenWords(s, SearchedKeywordsBytes), nil
}

// cutBetweenWords returns the longest prefix of s, single-spaced, of at
// most n bytes that ends at the end of a word; a first word longer than n
// is cut at a character boundary.
func cutBetweenWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n+1], ' '); i > 0 {
		return s[:i]
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
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
