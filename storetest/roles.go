package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// An account's role: none at first, set and cleared by email, kept by
// every read, seen by another handle; a disabled admin has no admin
// rights.
func roles(t *testing.T, open Opener) {
	ctx := context.Background()
	db, another := open(t)
	a := &mcpdir.Account{ID: mcpdir.EntryID("acct-role"), Email: "r@example.com", PasswordHash: "h", CreatedAt: time.Now()}
	if err := db.CreateAccount(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.AccountByEmail(ctx, a.Email); got.Role != "" || got.IsAdmin() {
		t.Fatalf("a new account's role: %q", got.Role)
	}
	if err := db.SetAccountRole(ctx, a.Email, mcpdir.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	byID, _ := another().AccountByID(ctx, a.ID)
	all, _ := another().Accounts(ctx)
	if byID == nil || !byID.IsAdmin() || len(all) != 1 || all[0].Role != mcpdir.RoleAdmin {
		t.Fatalf("promoted: %+v %+v", byID, all)
	}
	if err := db.DisableAccount(ctx, a.Email, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.AccountByEmail(ctx, a.Email); got.Role != mcpdir.RoleAdmin || got.IsAdmin() {
		t.Fatalf("a disabled admin: role %q, admin %v", got.Role, got.IsAdmin())
	}
	if err := db.SetAccountRole(ctx, a.Email, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.AccountByEmail(ctx, a.Email); got.Role != "" {
		t.Fatalf("demoted: %q", got.Role)
	}
	if err := db.SetAccountRole(ctx, "nobody@example.com", mcpdir.RoleAdmin); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("an unknown account: %v", err)
	}
}
