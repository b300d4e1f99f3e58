package accounts_test

import (
	"context"
	"errors"
	"fmt"
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

// Finding 8 of issue 28: 11 wrong passwords from 11 addresses locked the
// owner out for 15 minutes. Now failures count hard per (account,
// address) and per address (an IPv6 /64 as one), and per account only
// against addresses that failed on it: the owner logging in from an
// address with no failures gets in, while a guesser gains nothing.
func TestFailedLoginsCannotLockTheOwnerOut(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := accounts.New(db, memory.NewLimiter(nil))
	const right = "a long enough password"
	if _, _, err := s.SignUp(ctx, "ada@example.com", right); err != nil {
		t.Fatal(err)
	}
	var th *accounts.ThrottledError
	// Strangers fail from more addresses than the account's bar allows.
	for i := range accounts.MaxAccountFailures + 10 {
		s.LogIn(ctx, "ada@example.com", "a wrong guess", fmt.Sprintf("198.51.%d.%d", i/200, i%200+1))
	}
	if _, _, err := s.LogIn(ctx, "ada@example.com", right, "192.0.2.44"); err != nil {
		t.Fatalf("the owner, from an address with no failures: %v", err)
	}
	// A guesser returning to an address that failed on the account is
	// held back, even with the right password.
	if _, _, err := s.LogIn(ctx, "ada@example.com", right, "198.51.0.1"); !errors.As(err, &th) {
		t.Fatalf("an address that failed on a much-guessed account: %v", err)
	}

	// One address: MaxFailures on one account, then refused on it; other
	// accounts until MaxAddressFailures; other addresses of its /64 too.
	if _, _, err := s.SignUp(ctx, "bob@example.com", right); err != nil {
		t.Fatal(err)
	}
	for range accounts.MaxFailures {
		if _, _, err := s.LogIn(ctx, "bob@example.com", "a wrong guess", "2001:db8:1:2::1"); err != accounts.ErrBadLogin {
			t.Fatalf("a failure: %v", err)
		}
	}
	if _, _, err := s.LogIn(ctx, "bob@example.com", right, "2001:db8:1:2::99"); !errors.As(err, &th) {
		t.Fatalf("another address of the guessing /64: %v", err)
	}
	if _, _, err := s.LogIn(ctx, "bob@example.com", right, "2001:db8:1:3::1"); err != nil {
		t.Fatalf("the owner from another /64: %v", err)
	}
	for i := range accounts.MaxAddressFailures - accounts.MaxFailures {
		s.LogIn(ctx, fmt.Sprintf("nobody%d@example.com", i), "a wrong guess", "2001:db8:1:2::1")
	}
	if _, _, err := s.LogIn(ctx, "carol@example.com", "a wrong guess", "2001:db8:1:2::1"); !errors.As(err, &th) {
		t.Fatalf("an address past its own bar, on a new account: %v", err)
	}
}
