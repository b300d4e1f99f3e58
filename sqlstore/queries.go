package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Driver is what Queries need of a store's database.
type Driver interface {
	// Query runs query with args and hands its rows to read; the rows
	// are closed after.
	Query(ctx context.Context, query string, args []any, read func(Rows) error) error
	// QueryRow runs a query of one row at most: scanning a missing row
	// is mcpdir.ErrNotFound.
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Exec runs a statement and says how many rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
}

// Queries are the statements both stores make alike, each the same SQL but
// for its placeholders: reads of accounts and their sessions, API keys,
// OAuth codes, grants and tokens, the audit trail, rate windows, server
// versions, the state, the change feed and the count of entries; the
// writes of one statement (sessions, roles, codes, the audit trail). A
// store embeds them, its driver and dialect set, and writes the rest
// itself.
type Queries struct {
	Driver  Driver
	Dialect Dialect
	// Now is the store's clock.
	Now func() time.Time
}

// p is the n-th placeholder.
func (r Queries) p(n int) string { return r.Dialect.Placeholder(n) }

// ps are the placeholders 1 to n, separated by commas.
func (r Queries) ps(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString(r.p(i))
	}
	return b.String()
}

// one is what a read of one row gives: any error but mcpdir.ErrNotFound
// wrapped with what.
func one[T any](x T, err error, what string) (T, error) {
	if err != nil && !errors.Is(err, mcpdir.ErrNotFound) {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return x, err
}

// list reads every row of query with scan, wrapping any error with what.
func list[T any](ctx context.Context, r Queries, what, query string, args []any, scan func(Row) (T, error)) ([]T, error) {
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
func (r Queries) query(ctx context.Context, what, q string, args []any, read func(Rows) error) error {
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

func (r Queries) account(ctx context.Context, where string, arg any) (*mcpdir.Account, error) {
	a, err := ScanAccount(r.Driver.QueryRow(ctx, `SELECT `+AccountColumns+` FROM accounts WHERE `+where+` = `+r.p(1), arg))
	return one(a, err, "read account")
}

// AccountByEmail implements mcpdir.AccountStore.
func (r Queries) AccountByEmail(ctx context.Context, email string) (*mcpdir.Account, error) {
	return r.account(ctx, "email", email)
}

// AccountByID implements mcpdir.AccountStore.
func (r Queries) AccountByID(ctx context.Context, id string) (*mcpdir.Account, error) {
	return r.account(ctx, "id", id)
}

// Accounts implements mcpdir.AccountStore.
func (r Queries) Accounts(ctx context.Context) ([]*mcpdir.Account, error) {
	return list(ctx, r, "list accounts", `SELECT `+AccountColumns+` FROM accounts ORDER BY created_at, email`, nil, ScanAccount)
}

// Keys implements mcpdir.KeyStore.
func (r Queries) Keys(ctx context.Context) ([]*mcpdir.APIKey, error) {
	return list(ctx, r, "list keys", `SELECT `+KeyColumns+KeysFrom+` ORDER BY k.created_at, k.prefix`, nil, ScanKey)
}

// KeyByPrefix implements mcpdir.KeyStore.
func (r Queries) KeyByPrefix(ctx context.Context, prefix string) (*mcpdir.APIKey, error) {
	k, err := ScanKey(r.Driver.QueryRow(ctx, `SELECT `+KeyColumns+KeysFrom+` WHERE k.prefix = `+r.p(1), prefix))
	return one(k, err, "read key")
}

// CountClients implements mcpdir.OAuthStore.
func (r Queries) CountClients(ctx context.Context) (int, error) {
	var n int
	if err := r.Driver.QueryRow(ctx, `SELECT COUNT(*) FROM oauth_clients`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count clients: %w", err)
	}
	return n, nil
}

// Code implements mcpdir.OAuthStore.
func (r Queries) Code(ctx context.Context, hash []byte) (*mcpdir.OAuthCode, error) {
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
func (r Queries) Grant(ctx context.Context, id string) (*mcpdir.OAuthGrant, error) {
	g, err := ScanGrant(r.Driver.QueryRow(ctx, `SELECT `+GrantColumns+` FROM oauth_grants WHERE id = `+r.p(1), id))
	return one(g, err, "read grant")
}

// Grants implements mcpdir.OAuthStore.
func (r Queries) Grants(ctx context.Context, accountID string) ([]*mcpdir.OAuthGrant, error) {
	return list(ctx, r, "list grants", `SELECT `+GrantColumns+` FROM oauth_grants WHERE account_id = `+r.p(1)+` AND revoked_at = 0 ORDER BY created_at DESC, id`,
		[]any{accountID}, func(row Row) (*mcpdir.OAuthGrant, error) { return ScanGrant(row) })
}

// AppendAudit implements mcpdir.AuditStore.
func (r Queries) AppendAudit(ctx context.Context, rec mcpdir.AuditRecord) error {
	at := rec.At
	if at.IsZero() {
		at = r.Now()
	}
	if _, err := r.Driver.Exec(ctx, `INSERT INTO audit (at, actor, action, target, changes) VALUES (`+r.ps(5)+`)`,
		UnixNano(at), rec.Actor, rec.Action, rec.Target, string(rec.Changes)); err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}

// Audit implements mcpdir.AuditStore.
func (r Queries) Audit(ctx context.Context, before int64, limit int) (out []mcpdir.AuditRecord, err error) {
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
func (r Queries) RateWindows(ctx context.Context, limiter string) (out map[string][]time.Time, err error) {
	err = r.query(ctx, "read rate windows", `SELECT key, times FROM rate_windows WHERE limiter = `+r.p(1), []any{limiter}, func(rows Rows) (err error) {
		out, err = ScanRateWindows(rows)
		return err
	})
	return out, err
}

// VersionHeads implements mcpdir.VersionStore.
func (r Queries) VersionHeads(ctx context.Context, fn func(*mcpdir.ServerVersion) error) error {
	return r.ReadVersions(ctx, `SELECT `+VersionColumns+` FROM server_versions`, nil, false, fn)
}

// ReadVersions passes fn each server version q reads: VersionColumns, and
// the server after them when withServer.
func (r Queries) ReadVersions(ctx context.Context, q string, args []any, withServer bool, fn func(*mcpdir.ServerVersion) error) error {
	return r.query(ctx, "read versions", q, args, func(rows Rows) error {
		return ScanVersions(rows, withServer, fn)
	})
}

// Token implements mcpdir.OAuthStore.
func (r Queries) Token(ctx context.Context, hash []byte) (*mcpdir.OAuthToken, *mcpdir.OAuthGrant, error) {
	t := mcpdir.OAuthToken{Hash: hash}
	var expires, rotated int64
	g, err := ScanGrant(r.Driver.QueryRow(ctx, `SELECT g.id, g.client_id, g.client_name, g.account_id, g.created_at, g.last_used_at, g.revoked_at, t.refresh, t.expires_at, t.rotated_at
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = `+r.p(1), hash), &t.Refresh, &expires, &rotated)
	if err != nil {
		_, err = one(g, err, "read token")
		return nil, nil, err
	}
	t.GrantID, t.ExpiresAt, t.RotatedAt = g.ID, FromUnixNano(expires), FromUnixNano(rotated)
	return &t, g, nil
}

// CreateCode implements mcpdir.OAuthStore.
func (r Queries) CreateCode(ctx context.Context, c *mcpdir.OAuthCode) error {
	if _, err := r.Driver.Exec(ctx, `INSERT INTO oauth_codes (hash, client_id, client_name, account_id, redirect_uri, challenge, expires_at) VALUES (`+r.ps(7)+`)`,
		c.Hash, c.ClientID, c.ClientName, c.AccountID, c.RedirectURI, c.Challenge, UnixNano(c.ExpiresAt)); err != nil {
		return fmt.Errorf("create code: %w", err)
	}
	return nil
}

// SetAccountRole implements mcpdir.AccountStore.
func (r Queries) SetAccountRole(ctx context.Context, email, role string) error {
	n, err := r.Driver.Exec(ctx, `UPDATE accounts SET role = `+r.p(1)+` WHERE email = `+r.p(2), role, email)
	if err != nil {
		return fmt.Errorf("set account role: %w", err)
	}
	if n == 0 {
		return mcpdir.ErrNotFound
	}
	return nil
}

// CreateSession implements mcpdir.AccountStore.
func (r Queries) CreateSession(ctx context.Context, ws *mcpdir.WebSession) error {
	if _, err := r.Driver.Exec(ctx, `INSERT INTO web_sessions (hash, account_id, created_at, last_seen) VALUES (`+r.ps(4)+`)`,
		ws.Hash, ws.AccountID, UnixNano(ws.CreatedAt), UnixNano(ws.LastSeen)); err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// SessionByHash implements mcpdir.AccountStore.
func (r Queries) SessionByHash(ctx context.Context, hash []byte) (*mcpdir.WebSession, error) {
	ws := mcpdir.WebSession{Hash: hash}
	var created, seen int64
	if err := r.Driver.QueryRow(ctx, `SELECT account_id, created_at, last_seen FROM web_sessions WHERE hash = `+r.p(1), hash).Scan(&ws.AccountID, &created, &seen); err != nil {
		return one[*mcpdir.WebSession](nil, err, "read session")
	}
	ws.CreatedAt, ws.LastSeen = FromUnixNano(created), FromUnixNano(seen)
	return &ws, nil
}

// TouchSession implements mcpdir.AccountStore.
func (r Queries) TouchSession(ctx context.Context, hash []byte, at time.Time) error {
	if _, err := r.Driver.Exec(ctx, `UPDATE web_sessions SET last_seen = `+r.p(1)+` WHERE hash = `+r.p(2), at.UnixNano(), hash); err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// DeleteSession implements mcpdir.AccountStore.
func (r Queries) DeleteSession(ctx context.Context, hash []byte) error {
	if _, err := r.Driver.Exec(ctx, `DELETE FROM web_sessions WHERE hash = `+r.p(1), hash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// State implements mcpdir.StateStore: "" for a key never set.
func (r Queries) State(ctx context.Context, key string) (string, error) {
	var v string
	err := r.Driver.QueryRow(ctx, `SELECT value FROM state WHERE key = `+r.p(1), key).Scan(&v)
	if errors.Is(err, mcpdir.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read state %s: %w", key, err)
	}
	return v, nil
}

// LatestChange implements mcpdir.ChangeFeed.
func (r Queries) LatestChange(ctx context.Context) (int64, error) {
	var seq int64
	if err := r.Driver.QueryRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM changes`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("latest change: %w", err)
	}
	return seq, nil
}

// ChangesSince implements mcpdir.ChangeFeed.
func (r Queries) ChangesSince(ctx context.Context, after int64, limit int) ([]mcpdir.Change, error) {
	return list(ctx, r, "read changes", `SELECT seq, kind, ref FROM changes WHERE seq > `+r.p(1)+` ORDER BY seq LIMIT `+r.p(2), []any{after, limit},
		func(row Row) (c mcpdir.Change, err error) {
			err = row.Scan(&c.Seq, &c.Kind, &c.Ref)
			return c, err
		})
}

// CountEntries implements mcpdir.EntryStore.
func (r Queries) CountEntries(ctx context.Context) (int, error) {
	var n int
	if err := r.Driver.QueryRow(ctx, `SELECT COUNT(*) FROM entries`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count entries: %w", err)
	}
	return n, nil
}
