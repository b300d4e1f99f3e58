package registryapi

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestIsSchemaName holds the hand-written check to the schema's pattern and
// the namespace's dot, on names made of the characters that decide it.
func TestIsSchemaName(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	want := func(name string) bool {
		return pattern.MatchString(name) && strings.Contains(strings.SplitN(name, "/", 2)[0], ".")
	}
	names := []string{"", "/", "a/b", "a.b/c", ".", "./.", "a./_", "_a.b/c", "a.b/c/d", "a.b/", "/a.b", "a.b/c_d-e.f",
		"io.github.x/y", "@scope/pkg", "com.npmjs/scope.pkg", "a.b/é", "a.b\n/c", "a-b/c.d"}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aZ9.-_/@ é"
	for range 200000 {
		var b strings.Builder
		for range r.IntN(7) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		names = append(names, b.String())
	}
	for _, n := range names {
		if got := isSchemaName(n); got != want(n) {
			t.Fatalf("isSchemaName(%q) = %v, want %v", n, got, want(n))
		}
	}
}
