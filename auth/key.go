// Package auth turns the Authorization header of a request into an API key,
// and spends that key's rate-limit budget. Keys live in the key store as
// hashes; the server keeps them in memory, follows the change feed for new,
// revoked and changed keys, and records last-used times in batches.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"math/big"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Key format: "mcpd_" + 27 base62 characters of 160 random bits + 6 base62
// characters of CRC-32 checksum. The fixed prefix lets secret scanners find
// leaked keys; the checksum lets a typo or a made-up key be refused without
// any lookup.
const (
	KeyPrefix    = "mcpd_"
	secretChars  = 27 // 62^27 > 2^160
	checksumLen  = 6  // 62^6 > 2^32
	keyLen       = len(KeyPrefix) + secretChars + checksumLen
	publicIDLen  = len(KeyPrefix) + 8
	base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// NewSecret returns a new random key and its public prefix.
func NewSecret() (secret, prefix string) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	body := base62(new(big.Int).SetBytes(b[:]), secretChars)
	secret = KeyPrefix + body + checksum(body)
	return secret, PublicID(secret)
}

// PublicID is the part of a key that is safe to show and log, and that
// identifies it in the key store.
func PublicID(secret string) string {
	if len(secret) < publicIDLen {
		return ""
	}
	return secret[:publicIDLen]
}

// WellFormed reports whether s has the shape and checksum of a key.
func WellFormed(s string) bool {
	if len(s) != keyLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		if !isBase62[s[i]] {
			return false
		}
	}
	body := s[len(KeyPrefix) : len(KeyPrefix)+secretChars]
	return s[len(KeyPrefix)+secretChars:] == checksum(body)
}

// isBase62 tells the bytes of base62Digits: WellFormed reads every byte
// of the key of every request.
var isBase62 = func() (t [256]bool) {
	for i := range len(base62Digits) {
		t[base62Digits[i]] = true
	}
	return t
}()

// checksum is the CRC-32 of a key's random part in checksumLen base-62
// digits. It runs on every request, so it stays off math/big.
func checksum(body string) string {
	var out [checksumLen]byte
	n := crc32.ChecksumIEEE([]byte(body))
	for i := checksumLen - 1; i >= 0; i-- {
		out[i] = base62Digits[n%62]
		n /= 62
	}
	return string(out[:])
}

// Hash is what the key store keeps of a key.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// base62 writes n in exactly width base-62 digits (zero-padded).
func base62(n *big.Int, width int) string {
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = base62Digits[mod.Int64()]
	}
	return string(out)
}

// TokenFromHeader takes the key out of an Authorization header value: both
// "Bearer <key>" (RFC 6750) and the bare key (the spec's client example)
// are accepted.
func TokenFromHeader(v string) string {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "Bearer") {
		return "" // the scheme with no credentials
	}
	if scheme, rest, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(rest)
	}
	return v
}

// KeySpec is what a new key is made with.
type KeySpec struct {
	Owner     string // an account's id; empty for the operator's keys
	Name      string
	Scope     mcpdir.Scope
	RateLimit int           // per RateWindow; mcpdir.Unlimited for none
	Lifetime  time.Duration // 0: never expires
}

// CreateKey makes a key, stores its hash, and returns the secret, which is
// never stored and must be shown to its owner once.
func CreateKey(ctx context.Context, store mcpdir.KeyStore, spec KeySpec) (string, *mcpdir.APIKey, error) {
	if !spec.Scope.Valid() {
		return "", nil, fmt.Errorf("create key: unknown scope %q", spec.Scope)
	}
	secret, prefix := NewSecret()
	now := time.Now().UTC()
	k := &mcpdir.APIKey{Prefix: prefix, Name: spec.Name, Scope: spec.Scope, Hash: Hash(secret), RateLimit: spec.RateLimit, CreatedAt: now, Owner: spec.Owner}
	if spec.Lifetime > 0 {
		k.ExpiresAt = now.Add(spec.Lifetime)
	}
	if err := store.CreateKey(ctx, k); err != nil {
		return "", nil, err
	}
	return secret, k, nil
}
