package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mcpdir/mcpdir"
)

// Password bounds.
const (
	MinPassword = 10
	MaxPassword = 256
)

// SessionIdle is how long a web session lives without use.
const SessionIdle = 30 * 24 * time.Hour

// Failed logins allowed per account and per client address in
// ThrottleWindow; past them a login is refused before its password is
// checked.
const (
	MaxFailures    = 10
	ThrottleWindow = 15 * time.Minute
)

// ErrBadLogin is the one answer to a wrong email or a wrong password.
var ErrBadLogin = mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "Invalid email or password")

// ThrottledError says a login is refused until After.
type ThrottledError struct{ After time.Duration }

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("too many failed logins: try again in %s", e.After.Round(time.Second))
}

// Service signs people up and in.
type Service struct {
	store    mcpdir.AccountStore
	failures mcpdir.RateLimiter
	now      func() time.Time
	// dummy is verified for unknown emails, so that they take as long as
	// a wrong password.
	dummy string
}

// New returns a Service over the store; failures counts failed logins.
func New(store mcpdir.AccountStore, failures mcpdir.RateLimiter) *Service {
	return &Service{store: store, failures: failures, now: time.Now, dummy: HashPassword("not a password of anyone")}
}

// NormalizeEmail checks an address and returns it lower-cased.
func NormalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return "", mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "Enter a valid email address")
	}
	return email, nil
}

func checkPassword(password string) error {
	if n := utf8.RuneCountInString(password); n < MinPassword || n > MaxPassword {
		return mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "A password has %d to %d characters", MinPassword, MaxPassword)
	}
	return nil
}

// SignUp creates an account and signs it in: it returns the session's
// token for the cookie.
func (s *Service) SignUp(ctx context.Context, email, password string) (string, *mcpdir.Account, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return "", nil, err
	}
	if err := checkPassword(password); err != nil {
		return "", nil, err
	}
	a := &mcpdir.Account{ID: uuid.NewString(), Email: email, PasswordHash: HashPassword(password), CreatedAt: s.now().UTC()}
	if err := s.store.CreateAccount(ctx, a); err != nil {
		if mcpdir.ErrorCode(err) == mcpdir.ECodeConflict {
			return "", nil, mcpdir.Errorf(mcpdir.ECodeConflict, "An account with this email exists: log in")
		}
		return "", nil, err
	}
	token, err := s.newSession(ctx, a)
	return token, a, err
}

// LogIn checks an email and password and signs the account in. A wrong
// email and a wrong password get the same answer in about the same time;
// an address or account with too many recent failures gets a
// ThrottledError.
func (s *Service) LogIn(ctx context.Context, email, password, clientIP string) (string, *mcpdir.Account, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if len(email) > 254 || len(password) > 4*MaxPassword {
		return "", nil, ErrBadLogin
	}
	for _, k := range []string{"login-ip:" + clientIP, "login-account:" + email} {
		if d := s.peek(ctx, k); !d.Allowed {
			return "", nil, &ThrottledError{After: d.RetryAfter}
		}
	}
	a, err := s.store.AccountByEmail(ctx, email)
	if err != nil && !errors.Is(err, mcpdir.ErrNotFound) {
		return "", nil, err
	}
	hash := s.dummy
	if a != nil {
		hash = a.PasswordHash
	}
	ok := VerifyPassword(hash, password) && a != nil && !a.Disabled()
	if !ok {
		for _, k := range []string{"login-ip:" + clientIP, "login-account:" + email} {
			s.failures.Allow(ctx, k, MaxFailures, ThrottleWindow)
		}
		return "", nil, ErrBadLogin
	}
	token, err := s.newSession(ctx, a)
	return token, a, err
}

// peek tells whether another failure would still be allowed, without
// counting one.
func (s *Service) peek(ctx context.Context, key string) mcpdir.RateDecision {
	if p, ok := s.failures.(interface {
		Peek(ctx context.Context, key string, limit int, window time.Duration) mcpdir.RateDecision
	}); ok {
		return p.Peek(ctx, key, MaxFailures, ThrottleWindow)
	}
	return mcpdir.RateDecision{Allowed: true}
}

func (s *Service) newSession(ctx context.Context, a *mcpdir.Account) (string, error) {
	token := "mcpdir_s_" + rand.Text() + rand.Text()
	now := s.now().UTC()
	if err := s.store.CreateSession(ctx, &mcpdir.WebSession{Hash: tokenHash(token), AccountID: a.ID, CreatedAt: now, LastSeen: now}); err != nil {
		return "", err
	}
	return token, nil
}

func tokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// Session returns the signed-in account of a session token, or
// ErrNotFound: unknown, ended, idle for SessionIdle, or of a disabled
// account.
func (s *Service) Session(ctx context.Context, token string) (*mcpdir.Account, error) {
	if token == "" || len(token) > 128 {
		return nil, mcpdir.ErrNotFound
	}
	ws, err := s.store.SessionByHash(ctx, tokenHash(token))
	if err != nil {
		return nil, err
	}
	now := s.now()
	if now.Sub(ws.LastSeen) > SessionIdle {
		s.store.DeleteSession(ctx, ws.Hash)
		return nil, mcpdir.ErrNotFound
	}
	a, err := s.store.AccountByID(ctx, ws.AccountID)
	if err != nil {
		return nil, err
	}
	if a.Disabled() {
		return nil, mcpdir.ErrNotFound
	}
	if now.Sub(ws.LastSeen) > time.Hour { // idle time counted to the hour: no write per page
		s.store.TouchSession(ctx, ws.Hash, now)
	}
	return a, nil
}

// LogOut ends a session on the server: its cookie no longer works.
func (s *Service) LogOut(ctx context.Context, token string) error {
	return s.store.DeleteSession(ctx, tokenHash(token))
}
