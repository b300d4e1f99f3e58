package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// oauth: clients, a code redeemed once, tokens found by hash, a refresh
// rotated once, revocation that ends every token of a grant and reaches
// the change feed, and the sweep.
func oauth(t *testing.T, open Opener) {
	ctx := context.Background()
	db, another := open(t)
	now := time.Now().Round(0).UTC()
	c := &mcpdir.OAuthClient{ID: "mcpdc_one", Name: "Inspector", RedirectURIs: []string{"http://127.0.0.1/cb", "https://app.example/cb"}, CreatedAt: now}
	if err := db.CreateClient(ctx, c, mcpdir.ClientQuota{}); err != nil {
		t.Fatal(err)
	}
	if got, err := another().Client(ctx, c.ID); err != nil || got.Name != c.Name || !slices.Equal(got.RedirectURIs, c.RedirectURIs) || !got.CreatedAt.Equal(now) {
		t.Fatalf("client: %+v %v", got, err)
	}
	if _, err := db.Client(ctx, "nope"); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("unknown client: %v", err)
	}
	if n, err := db.CountClients(ctx); err != nil || n != 1 {
		t.Fatalf("count: %d %v", n, err)
	}

	code := &mcpdir.OAuthCode{Hash: []byte("code-hash"), ClientID: c.ID, ClientName: c.Name, AccountID: "acct", RedirectURI: "http://127.0.0.1:5/cb", Challenge: "ch", ExpiresAt: now.Add(time.Minute)}
	if err := db.CreateCode(ctx, code); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Code(ctx, code.Hash); err != nil || got.Challenge != "ch" || got.RedirectURI != code.RedirectURI || got.GrantID != "" || !got.ExpiresAt.Equal(code.ExpiresAt) {
		t.Fatalf("code: %+v %v", got, err)
	}
	g := &mcpdir.OAuthGrant{ID: "grant-1", ClientID: c.ID, ClientName: c.Name, AccountID: "acct", CreatedAt: now}
	access := &mcpdir.OAuthToken{Hash: []byte("access-1"), GrantID: g.ID, ExpiresAt: now.Add(time.Hour)}
	refresh := &mcpdir.OAuthToken{Hash: []byte("refresh-1"), GrantID: g.ID, Refresh: true, ExpiresAt: now.Add(24 * time.Hour)}
	if err := db.RedeemCode(ctx, code.Hash, g, access, refresh); err != nil {
		t.Fatal(err)
	}
	g2 := *g
	g2.ID = "grant-2"
	if err := another().RedeemCode(ctx, code.Hash, &g2); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a code redeemed twice: %v", err)
	}
	if _, err := db.Grant(ctx, g2.ID); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("the second redemption stored a grant: %v", err)
	}
	if got, _ := db.Code(ctx, code.Hash); got.GrantID != g.ID {
		t.Fatalf("the code's grant: %q", got.GrantID)
	}
	tok, grant, err := another().Token(ctx, refresh.Hash)
	if err != nil || !tok.Refresh || tok.GrantID != g.ID || grant.ClientName != c.Name || grant.AccountID != "acct" || grant.Revoked() {
		t.Fatalf("token: %+v %+v %v", tok, grant, err)
	}
	access2 := &mcpdir.OAuthToken{Hash: []byte("access-2"), GrantID: g.ID, ExpiresAt: now.Add(time.Hour)}
	refresh2 := &mcpdir.OAuthToken{Hash: []byte("refresh-2"), GrantID: g.ID, Refresh: true, ExpiresAt: now.Add(24 * time.Hour)}
	seq, _ := db.LatestChange(ctx)
	rotated := now.Add(30 * time.Second)
	if err := db.RotateRefresh(ctx, refresh.Hash, rotated, access2, refresh2); err != nil {
		t.Fatal(err)
	}
	if err := db.RotateRefresh(ctx, refresh.Hash, rotated, &mcpdir.OAuthToken{Hash: []byte("x"), GrantID: g.ID}); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a refresh token rotated twice: %v", err)
	}
	if _, _, err := db.Token(ctx, []byte("x")); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a refused rotation stored its tokens: %v", err)
	}
	if err := db.RotateRefresh(ctx, access2.Hash, rotated); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("an access token rotated as a refresh token: %v", err)
	}
	// The rotated refresh token stays, linked to its grant and marked, so
	// that a replay is recognised; the grant's earlier access token is gone
	// and the replicas are told.
	if old, og, err := another().Token(ctx, refresh.Hash); err != nil || !old.Refresh || !old.RotatedAt.Equal(rotated) || og.ID != g.ID || !old.ExpiresAt.Equal(refresh.ExpiresAt) {
		t.Fatalf("the rotated refresh token: %+v %+v %v", old, og, err)
	}
	if cur, _, err := db.Token(ctx, refresh2.Hash); err != nil || !cur.RotatedAt.IsZero() {
		t.Fatalf("the new refresh token: %+v %v", cur, err)
	}
	if _, _, err := db.Token(ctx, access.Hash); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("the access token before the refresh lives on: %v", err)
	}
	if _, _, err := db.Token(ctx, access2.Hash); err != nil {
		t.Fatalf("the new access token: %v", err)
	}
	if changes, _ := another().ChangesSince(ctx, seq, 10); len(changes) != 1 || changes[0].Kind != mcpdir.ChangeGrantTokens || changes[0].Ref != g.ID {
		t.Fatalf("the refresh in the feed: %+v", changes)
	}
	// A grant keeps its newest RotatedRefreshKept rotated refresh tokens:
	// a client refreshing in a loop cannot fill the store.
	current := refresh2.Hash
	for i := range mcpdir.RotatedRefreshKept + 1 {
		next := &mcpdir.OAuthToken{Hash: []byte(fmt.Sprintf("refresh-loop-%d", i)), GrantID: g.ID, Refresh: true, ExpiresAt: now.Add(24 * time.Hour)}
		if err := db.RotateRefresh(ctx, current, rotated.Add(time.Duration(i+1)*time.Millisecond), next); err != nil {
			t.Fatal(err)
		}
		current = next.Hash
	}
	for h, kept := range map[string]bool{"refresh-1": false, "refresh-2": false, "refresh-loop-0": true, fmt.Sprintf("refresh-loop-%d", mcpdir.RotatedRefreshKept-1): true} {
		if tok, _, err := db.Token(ctx, []byte(h)); (err == nil) != kept || kept && tok.RotatedAt.IsZero() {
			t.Errorf("rotated refresh token %s: kept %v, want %v (%v)", h, err == nil, kept, err)
		}
	}
	used := now.Add(time.Minute)
	if err := db.TouchGrants(ctx, map[string]time.Time{g.ID: used}); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchGrants(ctx, map[string]time.Time{g.ID: now}); err != nil {
		t.Fatal(err)
	}
	if list, err := db.Grants(ctx, "acct"); err != nil || len(list) != 1 || !list[0].LastUsedAt.Equal(used) {
		t.Fatalf("grants: %+v %v", list, err)
	}
	seq, _ = db.LatestChange(ctx)
	if err := db.RevokeGrant(ctx, g.ID, used); err != nil {
		t.Fatal(err)
	}
	for _, h := range [][]byte{access2.Hash, current, []byte("refresh-loop-0")} {
		if _, _, err := db.Token(ctx, h); !errors.Is(err, mcpdir.ErrNotFound) {
			t.Fatalf("a token of a revoked grant lives on: %v", err)
		}
	}
	if changes, _ := another().ChangesSince(ctx, seq, 10); len(changes) != 1 || changes[0].Kind != mcpdir.ChangeGrant || changes[0].Ref != g.ID {
		t.Fatalf("the revocation in the feed: %+v", changes)
	}
	if got, _ := db.Grant(ctx, g.ID); !got.Revoked() {
		t.Fatal("not revoked")
	}
	if list, _ := db.Grants(ctx, "acct"); len(list) != 0 {
		t.Fatalf("a revoked grant listed: %+v", list)
	}

	// Disabling an account revokes its grants and deletes its pending
	// codes (a code kept would give tokens after the ban).
	a := &mcpdir.Account{ID: "acct-oauth", Email: "o@example.com", PasswordHash: "h", CreatedAt: now}
	if err := db.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	db.CreateCode(ctx, &mcpdir.OAuthCode{Hash: []byte("code-2"), ClientID: c.ID, AccountID: a.ID, ExpiresAt: now.Add(time.Minute)})
	g3 := &mcpdir.OAuthGrant{ID: "grant-3", ClientID: c.ID, ClientName: c.Name, AccountID: a.ID, CreatedAt: now}
	if err := db.RedeemCode(ctx, []byte("code-2"), g3, &mcpdir.OAuthToken{Hash: []byte("access-3"), GrantID: g3.ID, ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	pending := &mcpdir.OAuthCode{Hash: []byte("code-pending"), ClientID: c.ID, AccountID: a.ID, ExpiresAt: now.Add(time.Minute)}
	if err := db.CreateCode(ctx, pending); err != nil {
		t.Fatal(err)
	}
	others := &mcpdir.OAuthCode{Hash: []byte("code-of-another"), ClientID: c.ID, AccountID: "acct", ExpiresAt: now.Add(time.Minute)}
	if err := db.CreateCode(ctx, others); err != nil {
		t.Fatal(err)
	}
	if err := db.DisableAccount(ctx, a.Email, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.Token(ctx, []byte("access-3")); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a disabled account's token lives on: %v", err)
	}
	if _, err := another().Code(ctx, pending.Hash); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a disabled account's pending code lives on: %v", err)
	}
	if _, err := db.Code(ctx, others.Hash); err != nil {
		t.Fatalf("another account's code went with it: %v", err)
	}

	// The sweep: unused clients go, used ones stay.
	idle := &mcpdir.OAuthClient{ID: "mcpdc_idle", Name: "idle", RedirectURIs: []string{"https://x.example/cb"}, CreatedAt: now.Add(-48 * time.Hour)}
	if err := db.CreateClient(ctx, idle, mcpdir.ClientQuota{}); err != nil {
		t.Fatal(err)
	}
	if err := db.SweepOAuth(ctx, now.Add(48*time.Hour), now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Client(ctx, idle.ID); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("an unused registration outlived the sweep: %v", err)
	}
}

// clientQuota: registrations in parallel never take the table past its
// cap; one network gets at most its share; a full table makes room by
// dropping the oldest client no grant or code uses, and refuses only when
// every client is in use.
func clientQuota(t *testing.T, open Opener) {
	ctx := context.Background()
	db, _ := open(t)
	now := time.Now().Round(0).UTC()
	q := mcpdir.ClientQuota{Max: 20, PerNetwork: 3}
	client := func(id, network string, at time.Time) *mcpdir.OAuthClient {
		return &mcpdir.OAuthClient{ID: id, Name: id, RedirectURIs: []string{"https://a.example/cb"}, CreatedAt: at, Network: network}
	}

	// 40 networks register at once, each twice: 20 fit.
	var wg sync.WaitGroup
	var created, full atomic.Int32
	for i := range 80 {
		wg.Go(func() {
			err := db.CreateClient(ctx, client(fmt.Sprintf("c%02d", i), fmt.Sprintf("net%d", i/2), now), mcpdir.ClientQuota{Max: q.Max, PerNetwork: q.PerNetwork})
			switch {
			case err == nil:
				created.Add(1)
			case errors.Is(err, mcpdir.ErrClientsFull):
				full.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// With nothing in use, a full table evicts: every one was created,
	// and the table holds exactly the cap.
	if n, err := db.CountClients(ctx); err != nil || n != q.Max {
		t.Fatalf("after 80 parallel registrations with a cap of %d: %d clients (%v); %d created, %d refused", q.Max, n, err, created.Load(), full.Load())
	}

	// One network: its share, then ErrNetworkFull.
	for i := range q.PerNetwork + 2 {
		err := db.CreateClient(ctx, client(fmt.Sprintf("flood%d", i), "2001:db8:1:2::/64", now.Add(time.Second)), q)
		if i < q.PerNetwork && err != nil || i >= q.PerNetwork && !errors.Is(err, mcpdir.ErrNetworkFull) {
			t.Fatalf("registration %d from one network: %v", i, err)
		}
	}

	// Every client in use (a code each): a full table refuses.
	ids, _ := clientIDs(ctx, db, q.Max)
	for i, id := range ids {
		if err := db.CreateCode(ctx, &mcpdir.OAuthCode{Hash: []byte(fmt.Sprintf("quota-code-%d", i)), ClientID: id, AccountID: "a", ExpiresAt: now.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.CreateClient(ctx, client("late", "198.51.100.0/24", now.Add(2*time.Second)), q); !errors.Is(err, mcpdir.ErrClientsFull) {
		t.Fatalf("a full table of clients in use: %v", err)
	}
	if n, _ := db.CountClients(ctx); n != q.Max {
		t.Fatalf("after a refusal: %d clients", n)
	}
}

// clientIDs finds the ids of up to n clients by trying the ones the quota
// test made.
func clientIDs(ctx context.Context, db mcpdir.Store, n int) ([]string, error) {
	var ids []string
	for i := range 80 {
		for _, id := range []string{fmt.Sprintf("c%02d", i), fmt.Sprintf("flood%d", i)} {
			if _, err := db.Client(ctx, id); err == nil && len(ids) < n {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}
