package auth_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/sqlite"
)

func newKey(t testing.TB, store mcpdir.KeyStore, rate int, expires time.Time) string {
	t.Helper()
	secret, prefix := auth.NewSecret()
	k := &mcpdir.APIKey{Prefix: prefix, Name: "t", Scope: mcpdir.ScopeSearch, Hash: auth.Hash(secret), RateLimit: rate, CreatedAt: time.Now(), ExpiresAt: expires}
	if err := store.CreateKey(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return secret
}

func setup(t testing.TB) (*sqlite.DB, *auth.Service) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, auth.New(db, memory.NewLimiter(nil), slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	db, svc := setup(t)
	good := newKey(t, db, 20, time.Time{})
	expired := newKey(t, db, 20, time.Now().Add(-time.Second))
	revoked := newKey(t, db, 20, time.Time{})
	if err := db.RevokeKey(ctx, auth.PublicID(revoked), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	other, _ := auth.NewSecret() // well formed, never stored
	forged := auth.PublicID(good) + other[len(auth.PublicID(other)):]
	for _, tc := range []struct {
		header string
		want   error
	}{
		{"Bearer " + good, nil},
		{good, nil},
		{"", mcpdir.ErrMissingKey},
		{"Bearer ", mcpdir.ErrMissingKey},
		{"Bearer nonsense", mcpdir.ErrInvalidKey},
		{"Bearer " + other, mcpdir.ErrInvalidKey},
		{"Bearer " + forged, mcpdir.ErrInvalidKey}, // known prefix, wrong secret
		{"Bearer " + expired, mcpdir.ErrExpiredKey},
		{revoked, mcpdir.ErrRevokedKey},
	} {
		k, err := svc.Authenticate(ctx, tc.header)
		if !errors.Is(err, tc.want) {
			t.Errorf("%.20q: err %v, want %v", tc.header, err, tc.want)
		}
		if tc.want == nil && (k == nil || k.Prefix != auth.PublicID(good)) {
			t.Errorf("%.20q: key %+v", tc.header, k)
		}
	}
}

func TestKeyMadeByAnotherProcessWorksAtOnceAndRevocationAfterRefresh(t *testing.T) {
	ctx := context.Background()
	db, svc := setup(t)
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	key := newKey(t, db, 20, time.Time{}) // written after Load: not in memory
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Fatalf("new key refused: %v", err)
	}
	if err := db.RevokeKey(ctx, auth.PublicID(key), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := svc.Refresh(ctx, []string{auth.PublicID(key)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, key); !errors.Is(err, mcpdir.ErrRevokedKey) {
		t.Fatalf("revoked key: %v", err)
	}
}

func TestLastUsedIsBatched(t *testing.T) {
	ctx := context.Background()
	db, svc := setup(t)
	key := newKey(t, db, 20, time.Time{})
	svc.Load(ctx)
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	k, _ := db.KeyByPrefix(ctx, auth.PublicID(key))
	if !k.LastUsedAt.IsZero() {
		t.Fatal("a request wrote last-used to the database")
	}
	if err := svc.FlushLastUsed(ctx); err != nil {
		t.Fatal(err)
	}
	k, _ = db.KeyByPrefix(ctx, auth.PublicID(key))
	if time.Since(k.LastUsedAt) > time.Minute {
		t.Fatalf("last used not recorded: %v", k.LastUsedAt)
	}
}

func TestSpend(t *testing.T) {
	ctx := context.Background()
	_, svc := setup(t)
	limited := &mcpdir.APIKey{Prefix: "mcpd_limited1", RateLimit: 2}
	for i := range 3 {
		d, err := svc.Spend(ctx, limited)
		if err != nil || d.Allowed != (i < 2) || d.Limit != 2 {
			t.Fatalf("spend %d: %+v %v", i, d, err)
		}
	}
	free := &mcpdir.APIKey{Prefix: "mcpd_free1234", RateLimit: mcpdir.Unlimited}
	for range 100 {
		if d, _ := svc.Spend(ctx, free); !d.Allowed {
			t.Fatal("unlimited key limited")
		}
	}
}

// countingStore counts the key lookups that reach the real store.
type countingStore struct {
	*sqlite.DB
	lookups atomic.Int32
}

func (c *countingStore) KeyByPrefix(ctx context.Context, prefix string) (*mcpdir.APIKey, error) {
	c.lookups.Add(1)
	return c.DB.KeyByPrefix(ctx, prefix)
}

// A well-formed key that does not exist reaches the store once, not on
// every request; distinct ones are bounded; a key made later still works
// once the change feed delivers it.
func TestUnknownKeysDoNotFloodTheStore(t *testing.T) {
	ctx := context.Background()
	db, _ := setup(t)
	store := &countingStore{DB: db}
	svc := auth.New(store, memory.NewLimiter(nil), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	unknown, _ := auth.NewSecret()
	for range 100 {
		if _, err := svc.Authenticate(ctx, "Bearer "+unknown); !errors.Is(err, mcpdir.ErrInvalidKey) {
			t.Fatalf("unknown key: %v", err)
		}
	}
	if n := store.lookups.Load(); n != 1 {
		t.Errorf("100 requests with one unknown key made %d store lookups", n)
	}
	for range 1000 {
		other, _ := auth.NewSecret()
		svc.Authenticate(ctx, other)
	}
	if n := store.lookups.Load(); n > 100 {
		t.Errorf("1000 distinct unknown keys made %d store lookups", n)
	}
	// A key created elsewhere and delivered by the change feed works, even
	// one that was tried (and missed) before it existed.
	secret, prefix := auth.NewSecret()
	svc.Authenticate(ctx, secret)
	if err := db.CreateKey(ctx, &mcpdir.APIKey{Prefix: prefix, Name: "late", Scope: mcpdir.ScopeSearch, Hash: auth.Hash(secret), RateLimit: 20, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Refresh(ctx, []string{prefix}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, secret); err != nil {
		t.Errorf("a key delivered by the feed: %v", err)
	}
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	db, svc := setup(t)
	key := newKey(t, db, 20, time.Time{})
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	k, err := svc.Authenticate(ctx, key)
	if err != nil || svc.Check(k) != nil {
		t.Fatalf("fresh key: %v %v", err, svc.Check(k))
	}
	if err := svc.Revoke(ctx, k.Prefix); err != nil {
		t.Fatal(err)
	}
	if err := svc.Check(k); !errors.Is(err, mcpdir.ErrRevokedKey) {
		t.Errorf("revoked key checks %v", err)
	}
}

// Any Authorization header value: the answer is the one stored key (for
// exactly its secret, Bearer or bare) or one of the documented refusals.
func FuzzAuthenticate(f *testing.F) {
	db, svc := setup(f)
	key := newKey(f, db, 20, time.Time{})
	if err := svc.Load(context.Background()); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"Bearer " + key, key, "bearer  " + key + " ", "", "Bearer", "Basic abc", key[:20],
		key + "x", "Bearer " + key[:len(key)-1] + "A", "mcpd_", "\x00", strings.Repeat("A", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		k, err := svc.Authenticate(context.Background(), header)
		if err == nil {
			if auth.TokenFromHeader(header) != key || k.Prefix != auth.PublicID(key) {
				t.Fatalf("%q authenticated as %s", header, k.Prefix)
			}
			return
		}
		if !errors.Is(err, mcpdir.ErrMissingKey) && !errors.Is(err, mcpdir.ErrInvalidKey) {
			t.Fatalf("%q: %v", header, err)
		}
	})
}

// A key whose account is disabled authenticates no more (and open streams
// see it), until the account is enabled again; the store says so through
// the key, re-read on a change.
func TestDisabledOwnersKey(t *testing.T) {
	ctx := context.Background()
	db, svc := setup(t)
	a := &mcpdir.Account{ID: "acct-1", Email: "ada@example.com", PasswordHash: "h", CreatedAt: time.Now()}
	if err := db.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	secret, prefix := auth.NewSecret()
	if err := db.CreateKey(ctx, &mcpdir.APIKey{Prefix: prefix, Name: "t", Scope: mcpdir.ScopeSearch, Hash: auth.Hash(secret), RateLimit: 20, CreatedAt: time.Now(), Owner: a.ID}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	k, err := svc.Authenticate(ctx, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DisableAccount(ctx, a.Email, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := svc.Refresh(ctx, []string{prefix}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, "Bearer "+secret); err != mcpdir.ErrDisabledKey {
		t.Fatalf("a disabled account's key: %v", err)
	}
	if err := svc.Check(k); err != mcpdir.ErrDisabledKey {
		t.Fatalf("a disabled account's stream: %v", err)
	}
	if err := db.EnableAccount(ctx, a.Email); err != nil {
		t.Fatal(err)
	}
	svc.Refresh(ctx, []string{prefix})
	if _, err := svc.Authenticate(ctx, "Bearer "+secret); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
}
