package sqlstore

import (
	"fmt"

	"github.com/mcpdir/mcpdir"
)

// Row is one row of a query's answer: database/sql's *Row and *Rows, pgx's
// Row and Rows.
type Row interface {
	Scan(dest ...any) error
}

// Collect scans every row of rows with scan; the closing stays with the
// store.
func Collect[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		x, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// AccountColumns are the columns of accounts that ScanAccount reads.
const AccountColumns = `id, email, password_hash, created_at, disabled_at, role`

// ScanAccount reads an account: AccountColumns.
func ScanAccount(row Row) (*mcpdir.Account, error) {
	var a mcpdir.Account
	var created, disabled int64
	if err := row.Scan(&a.ID, &a.Email, &a.PasswordHash, &created, &disabled, &a.Role); err != nil {
		return nil, err
	}
	a.CreatedAt, a.DisabledAt = FromUnixNano(created), FromUnixNano(disabled)
	return &a, nil
}

// KeyColumns are the columns that ScanKey reads, from api_keys k joined
// with the owner's account a (KeysFrom).
const KeyColumns = `k.prefix, k.name, k.scope, k.hash, k.rate_limit, k.created_at, k.expires_at, k.last_used_at, k.revoked_at, k.owner, COALESCE(a.disabled_at, 0) <> 0`

// KeysFrom is where KeyColumns are read from.
const KeysFrom = ` FROM api_keys k LEFT JOIN accounts a ON k.owner <> '' AND a.id = k.owner`

// ScanKey reads an API key: KeyColumns.
func ScanKey(row Row) (*mcpdir.APIKey, error) {
	var k mcpdir.APIKey
	var scope string
	var created, expires, used, revoked int64
	if err := row.Scan(&k.Prefix, &k.Name, &scope, &k.Hash, &k.RateLimit, &created, &expires, &used, &revoked, &k.Owner, &k.OwnerDisabled); err != nil {
		return nil, err
	}
	k.Scope = mcpdir.Scope(scope)
	k.CreatedAt, k.ExpiresAt, k.LastUsedAt, k.RevokedAt = FromUnixNano(created), FromUnixNano(expires), FromUnixNano(used), FromUnixNano(revoked)
	return &k, nil
}

// GrantColumns are the columns of oauth_grants that ScanGrant reads.
const GrantColumns = `id, client_id, client_name, account_id, created_at, last_used_at, revoked_at`

// ScanGrant reads an OAuth grant: GrantColumns, then extra.
func ScanGrant(row Row, extra ...any) (*mcpdir.OAuthGrant, error) {
	var g mcpdir.OAuthGrant
	var created, used, revoked int64
	if err := row.Scan(append([]any{&g.ID, &g.ClientID, &g.ClientName, &g.AccountID, &created, &used, &revoked}, extra...)...); err != nil {
		return nil, err
	}
	g.CreatedAt, g.LastUsedAt, g.RevokedAt = FromUnixNano(created), FromUnixNano(used), FromUnixNano(revoked)
	return &g, nil
}

// VersionColumns are the columns of server_versions that ScanVersions
// reads, the server's document (server) after them when it is asked for.
const VersionColumns = `name, version, entry_key, status, status_message, published_at, updated_at, status_changed_at`

// ScanVersions passes each server version of rows to fn.
func ScanVersions(rows Rows, withServer bool, fn func(*mcpdir.ServerVersion) error) error {
	for rows.Next() {
		v := new(mcpdir.ServerVersion)
		var published, updated, changed int64
		var server []byte
		dest := []any{&v.Name, &v.Version, &v.EntryKey, &v.Status, &v.StatusMessage, &published, &updated, &changed}
		if withServer {
			dest = append(dest, &server)
		}
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read versions: %w", err)
		}
		v.Server = server
		v.PublishedAt, v.UpdatedAt, v.StatusChangedAt = FromUnixNano(published), FromUnixNano(updated), FromUnixNano(changed)
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read versions: %w", err)
	}
	return nil
}
