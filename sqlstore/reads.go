package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Driver is what Reads need of a store's database.
type Driver interface {
	// Query runs query with args and hands its rows to read; the rows
	// are closed after.
	Query(ctx context.Context, query string, args []any, read func(Rows) error) error
	// QueryRow runs a query of one row at most: scanning a missing row
	// is mcpdir.ErrNotFound.
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Reads are the reads both stores make alike: of accounts, API keys, OAuth
// codes and grants, the audit trail, rate windows and the heads of server
// versions. A store embeds them, its driver and dialect set.
type Reads struct {
	Driver  Driver
	Dialect Dialect
}

// p is the n-th placeholder.
func (r Reads) p(n int) string { return r.Dialect.Placeholder(n) }

// one is what a read of one row gives: any error but mcpdir.ErrNotFound
// wrapped with what.
func one[T any](x T, err error, what string) (T, error) {
	if err != nil && !errors.Is(err, mcpdir.ErrNotFound) {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return x, err
}

// list reads every row of query with scan, wrapping any error with what.
func list[T any](ctx context.Context, r Reads, what, query string, args []any, scan func(Row) (T, error)) ([]T, error) {
	var out []T
	err := r.Driver.Query(ctx, query, args, func(rows Rows) (err error) {
		out, err = Collect(rows, scan)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// query runs q and hands read its rows: a failure to run it is wrapped
// with what, read's errors are returned as they are.
func (r Reads) query(ctx context.Context, what, q string, args []any, read func(Rows) error) error {
	var readErr error
	err := r.Driver.Query(ctx, q, args, func(rows Rows) error {
		readErr = read(rows)
		return readErr
	})
	if err != nil && err != readErr {
		return fmt.Errorf("%s: %w", what, err)
	}
	return err
}

func (r Reads) account(ctx context.Context, where string, arg any) (*mcpdir.Account, error) {
	a, err := ScanAccount(r.Driver.QueryRow(ctx, `SELECT `+AccountColumns+` FROM accounts WHERE `+where+` = `+r.p(1), arg))
	return one(a, err, "read account")
}

// AccountByEmail implements mcpdir.AccountStore.
func (r Reads) AccountByEmail(ctx context.Context, email string) (*mcpdir.Account, error) {
	return r.account(ctx, "email", email)
}

// AccountByID implements mcpdir.AccountStore.
func (r Reads) AccountByID(ctx context.Context, id string) (*mcpdir.Account, error) {
	return r.account(ctx, "id", id)
}

// Accounts implements mcpdir.AccountStore.
func (r Reads) Accounts(ctx context.Context) ([]*mcpdir.Account, error) {
	return list(ctx, r, "list accounts", `SELECT `+AccountColumns+` FROM accounts ORDER BY created_at, email`, nil, ScanAccount)
}

// Keys implements mcpdir.KeyStore.
func (r Reads) Keys(ctx context.Context) ([]*mcpdir.APIKey, error) {
	return list(ctx, r, "list keys", `SELECT `+KeyColumns+KeysFrom+` ORDER BY k.created_at, k.prefix`, nil, ScanKey)
}

// KeyByPrefix implements mcpdir.KeyStore.
func (r Reads) KeyByPrefix(ctx context.Context, prefix string) (*mcpdir.APIKey, error) {
	k, err := ScanKey(r.Driver.QueryRow(ctx, `SELECT `+KeyColumns+KeysFrom+` WHERE k.prefix = `+r.p(1), prefix))
	return one(k, err, "read key")
}

// CountClients implements mcpdir.OAuthStore.
func (r Reads) CountClients(ctx context.Context) (int, error) {
	var n int
	if err := r.Driver.QueryRow(ctx, `SELECT COUNT(*) FROM oauth_clients`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count clients: %w", err)
	}
	return n, nil
}

// Code implements mcpdir.OAuthStore.
func (r Reads) Code(ctx context.Context, hash []byte) (*mcpdir.OAuthCode, error) {
	c := mcpdir.OAuthCode{Hash: hash}
	var expires int64
	err := r.Driver.QueryRow(ctx, `SELECT client_id, client_name, account_id, redirect_uri, challenge, expires_at, grant_id FROM oauth_codes WHERE hash = `+r.p(1), hash).
		Scan(&c.ClientID, &c.ClientName, &c.AccountID, &c.RedirectURI, &c.Challenge, &expires, &c.GrantID)
	if err != nil {
		return one[*mcpdir.OAuthCode](nil, err, "read code")
	}
	c.ExpiresAt = FromUnixNano(expires)
	return &c, nil
}

// Grant implements mcpdir.OAuthStore.
func (r Reads) Grant(ctx context.Context, id string) (*mcpdir.OAuthGrant, error) {
	g, err := ScanGrant(r.Driver.QueryRow(ctx, `SELECT `+GrantColumns+` FROM oauth_grants WHERE id = `+r.p(1), id))
	return one(g, err, "read grant")
}

// Grants implements mcpdir.OAuthStore.
func (r Reads) Grants(ctx context.Context, accountID string) ([]*mcpdir.OAuthGrant, error) {
	return list(ctx, r, "list grants", `SELECT `+GrantColumns+` FROM oauth_grants WHERE account_id = `+r.p(1)+` AND revoked_at = 0 ORDER BY created_at DESC, id`,
		[]any{accountID}, func(row Row) (*mcpdir.OAuthGrant, error) { return ScanGrant(row) })
}

// Audit implements mcpdir.AuditStore.
func (r Reads) Audit(ctx context.Context, before int64, limit int) (out []mcpdir.AuditRecord, err error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	err = r.query(ctx, "read audit", `SELECT seq, at, actor, action, target, changes FROM audit WHERE seq < `+r.p(1)+` ORDER BY seq DESC LIMIT `+r.p(2),
		[]any{before, min(max(limit, 1), mcpdir.MaxAuditPage)}, func(rows Rows) (err error) {
			out, err = ScanAudit(rows)
			return err
		})
	return out, err
}

// RateWindows reads the windows kept under the limiter's name.
func (r Reads) RateWindows(ctx context.Context, limiter string) (out map[string][]time.Time, err error) {
	err = r.query(ctx, "read rate windows", `SELECT key, times FROM rate_windows WHERE limiter = `+r.p(1), []any{limiter}, func(rows Rows) (err error) {
		out, err = ScanRateWindows(rows)
		return err
	})
	return out, err
}

// VersionHeads implements mcpdir.VersionStore.
func (r Reads) VersionHeads(ctx context.Context, fn func(*mcpdir.ServerVersion) error) error {
	return r.query(ctx, "read versions", `SELECT `+VersionColumns+` FROM server_versions`, nil, func(rows Rows) error {
		return ScanVersions(rows, false, fn)
	})
}
