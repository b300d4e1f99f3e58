package auth

import (
	"strings"
	"testing"
)

func TestNewSecretShape(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		s, prefix := NewSecret()
		if !strings.HasPrefix(s, KeyPrefix) || len(s) != keyLen || !WellFormed(s) {
			t.Fatalf("bad key %q", s)
		}
		if prefix != PublicID(s) || !strings.HasPrefix(s, prefix) {
			t.Fatalf("prefix %q of %q", prefix, s)
		}
		if seen[s] {
			t.Fatal("duplicate key")
		}
		seen[s] = true
	}
}

func TestWellFormedChecksum(t *testing.T) {
	s, _ := NewSecret()
	// Change one character of the secret part: the checksum must catch it.
	b := []byte(s)
	i := len(KeyPrefix) + 3
	if b[i] == 'a' {
		b[i] = 'b'
	} else {
		b[i] = 'a'
	}
	for _, bad := range []string{string(b), s[:len(s)-1], s + "x", "mcpd_" + strings.Repeat("A", keyLen-5), strings.Replace(s, "mcpd_", "mcpx_", 1), s[:10] + "!" + s[11:]} {
		if WellFormed(bad) {
			t.Errorf("WellFormed(%q) = true", bad)
		}
	}
}

func TestTokenFromHeader(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer abc":   "abc",
		"bearer  abc ": "abc",
		"abc":          "abc",
		"  abc  ":      "abc",
		"":             "",
		"Bearer":       "",
		"Basic abc":    "Basic abc",
	} {
		if got := TokenFromHeader(in); got != want {
			t.Errorf("TokenFromHeader(%q) = %q, want %q", in, got, want)
		}
	}
}
