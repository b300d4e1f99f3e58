package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// CreateKey implements mcpdir.KeyStore.
func (s *DB) CreateKey(ctx context.Context, k *mcpdir.APIKey) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO api_keys (prefix, name, scope, hash, rate_limit, created_at, expires_at, owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.Prefix, k.Name, string(k.Scope), k.Hash, k.RateLimit, sqlstore.UnixNano(k.CreatedAt), sqlstore.UnixNano(k.ExpiresAt), k.Owner)
	if err != nil {
		return createErr(err, "create key", mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "a key with this prefix exists"))
	}
	if err := recordChange(ctx, tx, mcpdir.ChangeKey, k.Prefix, s.now()); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

// RevokeKey implements mcpdir.KeyStore. Revoking a revoked key keeps the
// first revocation time.
func (s *DB) RevokeKey(ctx context.Context, prefix string, at time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE api_keys SET revoked_at = CASE WHEN revoked_at = 0 THEN ? ELSE revoked_at END WHERE prefix = ?`, at.UnixNano(), prefix)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return mcpdir.ErrNotFound
	}
	if err := recordChange(ctx, tx, mcpdir.ChangeKey, prefix, at); err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	return nil
}

// TouchKeys implements mcpdir.KeyStore. Last-used times only move forward,
// and are not in the change feed: no other process needs them promptly.
func (s *DB) TouchKeys(ctx context.Context, lastUsed map[string]time.Time) error {
	return s.touch(ctx, "touch keys", "api_keys", "prefix", lastUsed)
}

// touch moves the last_used_at of the rows of table whose idColumn is a
// key of lastUsed forward, in one transaction.
func (s *DB) touch(ctx context.Context, what, table, idColumn string, lastUsed map[string]time.Time) error {
	if len(lastUsed) == 0 {
		return nil
	}
	return s.inTx(ctx, what, func(tx *sql.Tx) error {
		for id, t := range lastUsed {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET last_used_at = MAX(last_used_at, ?) WHERE `+idColumn+` = ?`, t.UnixNano(), id); err != nil {
				return err
			}
		}
		return nil
	})
}
