package accounts_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"crypto/rand"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/redis"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/storetest"
)

// Finding 1 of issue 33: 110 wrong passwords sent at once from one address
// were all evaluated (the limit peeked, then counted afterwards), and the
// right password got in after them. An attempt is now counted before its
// password is checked: at most MaxFailures of them are evaluated, and the
// right password from there is refused; the owner elsewhere gets in.
func TestParallelWrongPasswordsAreCountedFirst(t *testing.T) {
	for name, limiter := range map[string]func(t *testing.T) mcpdir.RateReserver{
		"memory": func(*testing.T) mcpdir.RateReserver { return memory.NewLimiter(nil) },
		"redis": func(t *testing.T) mcpdir.RateReserver {
			url := storetest.RedisURL(t)
			ctx, cancel := context.WithCancel(context.Background())
			l, err := redis.NewLimiter(ctx, url, memory.NewLimiter(nil), slog.New(slog.NewTextHandler(io.Discard, nil)),
				redis.Options{Prefix: "mcpdir-test:" + rand.Text()[:10] + ":"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cancel(); l.Close() })
			return l
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := sqlite.Open(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// A hashing queue that never refuses: what is measured is the
			// count before the check, not the hashing bound (hasher_test.go),
			// which refuses attempts after 2 s on a loaded machine.
			s := accounts.New(db, limiter(t)).WithHasher(accounts.NewHasher(2, 200, time.Minute))
			const right = "a long enough password"
			if _, _, err := s.SignUp(ctx, "ada@example.com", right); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			results := map[string]int{}
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range 110 {
				wg.Go(func() {
					<-start
					_, _, err := s.LogIn(ctx, "ada@example.com", "a wrong guess!", "203.0.113.7")
					kind := "other: " + errString(err)
					var th *accounts.ThrottledError
					switch {
					case err == accounts.ErrBadLogin:
						kind = "evaluated"
					case errors.As(err, &th):
						kind = "throttled"
					}
					mu.Lock()
					results[kind]++
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			t.Logf("110 parallel wrong passwords from one address: %v", results)
			if results["evaluated"] > accounts.MaxFailures || results["evaluated"]+results["throttled"] != 110 {
				t.Errorf("evaluated %d of 110 (at most %d): %v", results["evaluated"], accounts.MaxFailures, results)
			}
			var th *accounts.ThrottledError
			if _, _, err := s.LogIn(ctx, "ada@example.com", right, "203.0.113.7"); !errors.As(err, &th) {
				t.Errorf("the right password after them from the same address: %v", err)
			}
			if _, _, err := s.LogIn(ctx, "ada@example.com", right, "192.0.2.1"); err != nil {
				t.Errorf("the owner from another address: %v", err)
			}
			// Successes are not failures: many right logins from one
			// address, one after another, leave its bar untouched.
			if _, _, err := s.SignUp(ctx, "bob@example.com", right); err != nil {
				t.Fatal(err)
			}
			for range accounts.MaxFailures + 5 {
				if _, _, err := s.LogIn(ctx, "bob@example.com", right, "192.0.2.2"); err != nil {
					t.Fatalf("a right password: %v", err)
				}
			}
			for range accounts.MaxFailures {
				if _, _, err := s.LogIn(ctx, "bob@example.com", "a wrong guess!", "192.0.2.2"); err != accounts.ErrBadLogin {
					t.Fatalf("a failure after successes: %v", err)
				}
			}
			if _, _, err := s.LogIn(ctx, "bob@example.com", right, "192.0.2.2"); !errors.As(err, &th) {
				t.Errorf("past the bar: %v", err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
