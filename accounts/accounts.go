package accounts

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/clientnet"
)

// Password bounds.
const (
	MinPassword = 10
	MaxPassword = 256
)

// SessionIdle is how long a web session lives without use.
const SessionIdle = 30 * 24 * time.Hour

// Failed logins allowed in ThrottleWindow; past them a login is refused
// before its password is checked. Addresses count by clientnet.Key (an
// IPv6 address by its /64). An account's own bar is much higher and holds
// back only the addresses that have failed on it: strangers failing from
// elsewhere cannot lock its owner out, and past the bar a guesser gets one
// try per address.
const (
	MaxFailures        = 10  // per account and address
	MaxAddressFailures = 30  // per address, whatever the accounts
	MaxAccountFailures = 100 // per account from all addresses
	ThrottleWindow     = 15 * time.Minute
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
	failures mcpdir.RateReserver
	hasher   *Hasher
	now      func() time.Time
	// dummy is verified for unknown emails, so that they take as long as
	// a wrong password.
	dummy string
}

// dummyHash is one hash for every Service of the process.
var dummyHash = sync.OnceValue(func() string { return HashPassword("not a password of anyone") })

// New returns a Service over the store; failures counts failed logins.
// Its passwords are hashed within the process's hashing bound.
func New(store mcpdir.AccountStore, failures mcpdir.RateReserver) *Service {
	return &Service{store: store, failures: failures, hasher: defaultHasher, now: time.Now, dummy: dummyHash()}
}

// WithHasher makes the Service hash within h's bound instead of the
// process's.
func (s *Service) WithHasher(h *Hasher) *Service {
	s.hasher = h
	return s
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
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return "", nil, err
	}
	a := &mcpdir.Account{ID: uuid.NewString(), Email: email, PasswordHash: hash, CreatedAt: s.now().UTC()}
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
// too many recent failures (see MaxFailures) get a ThrottledError, and a
// login finding every hashing slot taken a BusyError.
//
// An attempt is counted as a failure before its password is checked, and
// the count taken back when the password was right: attempts arriving at
// once, on one replica or many, cannot all pass a limit that a failure
// would only reach once they are done.
func (s *Service) LogIn(ctx context.Context, email, password, clientIP string) (string, *mcpdir.Account, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if len(email) > 254 || len(password) > 4*MaxPassword {
		return "", nil, ErrBadLogin
	}
	addr := clientnet.Key(clientIP)
	byAddr, byPair, byAccount := "login-ip:"+addr, "login-pair:"+addr+"|"+email, "login-account:"+email
	var undo []func()
	release := func() {
		for _, u := range undo {
			u()
		}
	}
	reserve := func(key string, limit int) (mcpdir.RateDecision, error) {
		d, u, err := s.failures.Reserve(ctx, key, limit, ThrottleWindow)
		if err != nil {
			release()
			return d, err
		}
		undo = append(undo, u)
		if !d.Allowed {
			release()
			return d, &ThrottledError{After: d.RetryAfter}
		}
		return d, nil
	}
	if _, err := reserve(byAddr, MaxAddressFailures); err != nil {
		return "", nil, err
	}
	pair, err := reserve(byPair, MaxFailures)
	if err != nil {
		return "", nil, err
	}
	// Past the account's bar, only an address with no failure (nor attempt
	// under way) on it gets a try: one per address.
	if d := s.peek(ctx, byAccount, MaxAccountFailures); !d.Allowed && MaxFailures-pair.Remaining > 1 {
		release()
		return "", nil, &ThrottledError{After: min(d.RetryAfter, pair.Reset)}
	}
	// Counted on the account only while under its bar: the bar holds back
	// addresses that failed, not the owner's.
	if _, u, err := s.failures.Reserve(ctx, byAccount, MaxAccountFailures, ThrottleWindow); err == nil {
		undo = append(undo, u)
	}

	a, err := s.store.AccountByEmail(ctx, email)
	if err != nil && !errors.Is(err, mcpdir.ErrNotFound) {
		release()
		return "", nil, err
	}
	hash := s.dummy // an unknown email costs one hash, as a known one does
	if a != nil {
		hash = a.PasswordHash
	}
	ok, err := s.hasher.Verify(ctx, hash, password)
	if err != nil { // not checked: not a failure
		release()
		return "", nil, err
	}
	if !ok || a == nil || a.Disabled() {
		return "", nil, ErrBadLogin
	}
	release() // a success is no failure
	token, err := s.newSession(ctx, a)
	return token, a, err
}

// peek tells whether another failure would still be allowed, without
// counting one.
func (s *Service) peek(ctx context.Context, key string, limit int) mcpdir.RateDecision {
	if p, ok := s.failures.(interface {
		Peek(ctx context.Context, key string, limit int, window time.Duration) mcpdir.RateDecision
	}); ok {
		return p.Peek(ctx, key, limit, ThrottleWindow)
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
