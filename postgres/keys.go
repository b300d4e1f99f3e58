package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// CreateKey implements mcpdir.KeyStore.
func (db *DB) CreateKey(ctx context.Context, k *mcpdir.APIKey) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO api_keys (prefix, name, scope, hash, rate_limit, created_at, expires_at, owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			k.Prefix, k.Name, string(k.Scope), k.Hash, k.RateLimit, sqlstore.UnixNano(k.CreatedAt), sqlstore.UnixNano(k.ExpiresAt), k.Owner); err != nil {
			return err
		}
		return recordChanges(ctx, tx, mcpdir.ChangeKey, []string{k.Prefix}, db.now())
	})
	return createErr(err, "create key", mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "a key with this prefix exists"))
}

// RevokeKey implements mcpdir.KeyStore. Revoking a revoked key keeps the
// first revocation time.
func (db *DB) RevokeKey(ctx context.Context, prefix string, at time.Time) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = CASE WHEN revoked_at = 0 THEN $1 ELSE revoked_at END WHERE prefix = $2`, at.UnixNano(), prefix)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return mcpdir.ErrNotFound
		}
		return recordChanges(ctx, tx, mcpdir.ChangeKey, []string{prefix}, at)
	})
	if errors.Is(err, mcpdir.ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	return nil
}

// TouchKeys implements mcpdir.KeyStore. Last-used times only move forward,
// and are not in the change feed: no other process needs them promptly.
func (db *DB) TouchKeys(ctx context.Context, lastUsed map[string]time.Time) error {
	if err := db.touch(ctx, "api_keys", "prefix", lastUsed); err != nil {
		return fmt.Errorf("touch keys: %w", err)
	}
	return nil
}

// touch moves the last_used_at of the rows of table whose idColumn is a
// key of lastUsed forward, in one statement.
func (db *DB) touch(ctx context.Context, table, idColumn string, lastUsed map[string]time.Time) error {
	if len(lastUsed) == 0 {
		return nil
	}
	ids := make([]string, 0, len(lastUsed))
	times := make([]int64, 0, len(lastUsed))
	for id, t := range lastUsed {
		ids, times = append(ids, id), append(times, t.UnixNano())
	}
	_, err := db.pool.Exec(ctx, `UPDATE `+table+` t SET last_used_at = GREATEST(t.last_used_at, u.at)
		FROM unnest($1::text[], $2::bigint[]) AS u(id, at) WHERE t.`+idColumn+` = u.id`, ids, times)
	return err
}
