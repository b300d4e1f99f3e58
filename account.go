package mcpdir

import (
	"context"
	"time"
)

// Account is a person who signs in to the web pages and owns API keys.
type Account struct {
	ID           string // a random UUID
	Email        string // lower-cased, unique
	PasswordHash string // argon2id, encoded with its parameters and salt
	CreatedAt    time.Time
	DisabledAt   time.Time // zero: enabled
	// Role is RoleAdmin for an account the operator promoted (`mcpdir
	// accounts promote`), else "".
	Role string
}

// RoleAdmin is the role of an account that may use the admin pages.
const RoleAdmin = "admin"

// Disabled reports whether the operator disabled the account.
func (a *Account) Disabled() bool { return !a.DisabledAt.IsZero() }

// IsAdmin reports whether the account may use the admin pages: promoted
// and not disabled.
func (a *Account) IsAdmin() bool { return a != nil && a.Role == RoleAdmin && !a.Disabled() }

// WebSession is a signed-in browser: only the hash of its cookie's token
// is stored.
type WebSession struct {
	Hash      []byte
	AccountID string
	CreatedAt time.Time
	LastSeen  time.Time
}

// AccountStore keeps accounts and their web sessions.
type AccountStore interface {
	// CreateAccount stores a new account; an email already taken is
	// ECodeConflict.
	CreateAccount(ctx context.Context, a *Account) error
	// AccountByEmail and AccountByID return ErrNotFound for none.
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	AccountByID(ctx context.Context, id string) (*Account, error)
	Accounts(ctx context.Context) ([]*Account, error)
	// DisableAccount disables an account, ends its sessions and stops its
	// keys (APIKey.OwnerDisabled), telling other processes through the
	// change feed (a key change per key). ErrNotFound for no such account.
	DisableAccount(ctx context.Context, email string, at time.Time) error
	// EnableAccount enables a disabled account again: it can log in, and
	// its keys work again, except those revoked (or expired) meanwhile.
	// Its ended sessions and grants stay ended. ErrNotFound for none.
	EnableAccount(ctx context.Context, email string) error
	// SetAccountRole sets an account's role (RoleAdmin or ""); ErrNotFound
	// for no such account.
	SetAccountRole(ctx context.Context, email, role string) error

	CreateSession(ctx context.Context, s *WebSession) error
	// SessionByHash returns ErrNotFound for none.
	SessionByHash(ctx context.Context, hash []byte) (*WebSession, error)
	TouchSession(ctx context.Context, hash []byte, at time.Time) error
	DeleteSession(ctx context.Context, hash []byte) error
}
