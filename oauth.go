package mcpdir

import (
	"context"
	"errors"
	"time"
)

// ChangeGrant in the change feed: an OAuth grant was revoked (its tokens
// stop working on every replica that follows the feed).
const ChangeGrant = "grant"

// ChangeGrantTokens in the change feed: a grant was refreshed, so its
// earlier access tokens were deleted (replicas drop them from memory).
const ChangeGrantTokens = "grant-tokens"

// OAuthClient is a client registered by Dynamic Client Registration
// (RFC 7591). Clients that identify themselves by a Client ID Metadata
// Document are not stored: their document is.
type OAuthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	CreatedAt    time.Time
	// Network is the network it was registered from (clientnet.Network):
	// what ClientQuota.PerNetwork counts.
	Network string
}

// ClientQuota bounds registered clients: Max in all, PerNetwork from one
// network (an IPv4 /24 or an IPv6 /64); 0 bounds nothing.
type ClientQuota struct{ Max, PerNetwork int }

// Refusals of CreateClient.
var (
	ErrClientsFull = errors.New("the registered clients are at their limit, each in use")
	ErrNetworkFull = errors.New("the clients registered from this network are at their limit")
)

// OAuthCode is an authorization code: only its hash is stored. GrantID is
// set once the code has been exchanged, so that a second exchange can
// revoke what the first one made.
type OAuthCode struct {
	Hash        []byte
	ClientID    string
	ClientName  string
	AccountID   string
	RedirectURI string
	Challenge   string // the S256 code challenge
	ExpiresAt   time.Time
	GrantID     string
}

// OAuthGrant is what a person allowed a client: the tokens issued from one
// authorization code and their refreshes. Its budget is its own, kept
// across refreshes.
type OAuthGrant struct {
	ID         string
	ClientID   string
	ClientName string
	AccountID  string
	CreatedAt  time.Time // when the person allowed it
	LastUsedAt time.Time // zero: never
	RevokedAt  time.Time // zero: not revoked
}

// Revoked reports whether the grant has been revoked.
func (g *OAuthGrant) Revoked() bool { return !g.RevokedAt.IsZero() }

// OAuthToken is an access or refresh token of a grant: only its hash is
// stored. A refresh token that a refresh replaced stays, linked to its
// grant until it expires, with RotatedAt set: presenting it again is a
// replay, which revokes the grant.
type OAuthToken struct {
	Hash      []byte
	GrantID   string
	Refresh   bool
	ExpiresAt time.Time
	RotatedAt time.Time // zero: the grant's current refresh token (or an access token)
}

// RotatedRefreshKept is how many of a grant's rotated refresh tokens are
// kept to recognise a replay: the newest, more than a month of hourly
// refreshes. It bounds what a client refreshing in a loop can store.
const RotatedRefreshKept = 1000

// OAuthStore keeps OAuth clients, codes, grants and tokens.
type OAuthStore interface {
	// CreateClient stores a client within the quota, atomically (the
	// count and the insert cannot interleave with another registration):
	// a network at its share is ErrNetworkFull; when the table is full,
	// the oldest client that no grant or code uses makes room, and when
	// every client is in use it is ErrClientsFull.
	CreateClient(ctx context.Context, c *OAuthClient, q ClientQuota) error
	// Client returns a registered client, or ErrNotFound.
	Client(ctx context.Context, id string) (*OAuthClient, error)
	CountClients(ctx context.Context) (int, error)

	CreateCode(ctx context.Context, c *OAuthCode) error
	// Code returns a code by its hash, or ErrNotFound.
	Code(ctx context.Context, hash []byte) (*OAuthCode, error)
	// RedeemCode marks the code exchanged for the new grant and stores the
	// grant and its first tokens, in one transaction. A code exchanged
	// already is ErrNotFound, and nothing is stored.
	RedeemCode(ctx context.Context, hash []byte, g *OAuthGrant, tokens ...*OAuthToken) error

	// Token returns a token (a rotated refresh token too) and its grant,
	// or ErrNotFound.
	Token(ctx context.Context, hash []byte) (*OAuthToken, *OAuthGrant, error)
	// RotateRefresh replaces a refresh token by new tokens of the same
	// grant, once, in one transaction: the old refresh token is marked
	// rotated at at (and kept until it expires, the grant's newest
	// RotatedRefreshKept only), the grant's access tokens are deleted, the
	// new tokens stored and ChangeGrantTokens recorded. A
	// refresh token rotated already (or none) is ErrNotFound.
	RotateRefresh(ctx context.Context, hash []byte, at time.Time, tokens ...*OAuthToken) error
	// Grant returns a grant, or ErrNotFound.
	Grant(ctx context.Context, id string) (*OAuthGrant, error)
	// Grants returns an account's grants that are not revoked, newest first.
	Grants(ctx context.Context, accountID string) ([]*OAuthGrant, error)
	// RevokeGrant revokes a grant, deletes its tokens and records the
	// change in the feed; revoking it again changes nothing.
	RevokeGrant(ctx context.Context, id string, at time.Time) error
	// TouchGrants records last-used times in one write.
	TouchGrants(ctx context.Context, lastUsed map[string]time.Time) error
	// SweepOAuth deletes what has expired at now: tokens, codes a day past
	// their expiry, revoked grants, and clients registered before
	// unusedBefore that no grant or code uses.
	SweepOAuth(ctx context.Context, now, unusedBefore time.Time) error
}
