package accounts_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/sqlite"
)

func TestPasswords(t *testing.T) {
	h := accounts.HashPassword("correct horse battery")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || h == accounts.HashPassword("correct horse battery") {
		t.Fatalf("hash %s (salted?)", h)
	}
	if !accounts.VerifyPassword(h, "correct horse battery") || accounts.VerifyPassword(h, "correct horse battery!") || accounts.VerifyPassword("garbage", "x") {
		t.Fatal("verify")
	}
}

func TestSignUpLogInLogOut(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := accounts.New(db, memory.NewLimiter(nil))
	for _, bad := range [][2]string{{"not-an-email", "long enough password"}, {"a@example.com", "short"}, {"a@example.com", strings.Repeat("x", 257)}} {
		if _, _, err := s.SignUp(ctx, bad[0], bad[1]); mcpdir.ErrorCode(err) != mcpdir.ECodeInvalidRequest {
			t.Errorf("%q: %v", bad, err)
		}
	}
	token, a, err := s.SignUp(ctx, " Ada@Example.com ", "a long enough password")
	if err != nil || a.Email != "ada@example.com" {
		t.Fatalf("sign up: %v %+v", err, a)
	}
	if _, _, err := s.SignUp(ctx, "ada@example.com", "another long password"); mcpdir.ErrorCode(err) != mcpdir.ECodeConflict {
		t.Errorf("a taken email: %v", err)
	}
	if got, err := s.Session(ctx, token); err != nil || got.ID != a.ID {
		t.Fatalf("session: %v", err)
	}
	if err := s.LogOut(ctx, token); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, token); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("the session outlived its logout: %v", err)
	}
	// A wrong password and an unknown email: the same answer.
	_, _, wrong := s.LogIn(ctx, "ada@example.com", "not the password", "198.51.100.1")
	_, _, unknown := s.LogIn(ctx, "nobody@example.com", "not the password", "198.51.100.1")
	if wrong != accounts.ErrBadLogin || unknown != accounts.ErrBadLogin {
		t.Fatalf("%v / %v", wrong, unknown)
	}
	if token, _, err = s.LogIn(ctx, "ADA@example.com", "a long enough password", "198.51.100.1"); err != nil {
		t.Fatalf("log in: %v", err)
	}
	// Throttled per address after 10 failures, even with the right password.
	for range 10 {
		s.LogIn(ctx, "ada@example.com", "wrong wrong wrong", "203.0.113.9")
	}
	var th *accounts.ThrottledError
	if _, _, err := s.LogIn(ctx, "ada@example.com", "a long enough password", "203.0.113.9"); !errors.As(err, &th) || th.After <= 0 {
		t.Fatalf("throttle: %v", err)
	}
	// A disabled account cannot log in, and its sessions end.
	if err := db.DisableAccount(ctx, "ada@example.com", a.CreatedAt); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, token); !errors.Is(err, mcpdir.ErrNotFound) {
		t.Fatalf("a disabled account's session: %v", err)
	}
}
