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

// CreateClient implements mcpdir.OAuthStore.
// Registrations take a transaction-scoped advisory lock, so that the
// counts and the insert of one cannot interleave with another's (READ
// COMMITTED alone would let two see room for one).
func (db *DB) CreateClient(ctx context.Context, c *mcpdir.OAuthClient, q mcpdir.ClientQuota) error {
	return db.inTx(ctx, "create client", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, clientsLock); err != nil {
			return err
		}
		var all, mine int
		if err := tx.QueryRow(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE network = $1) FROM oauth_clients`, c.Network).Scan(&all, &mine); err != nil {
			return err
		}
		if q.PerNetwork > 0 && mine >= q.PerNetwork {
			return mcpdir.ErrNetworkFull
		}
		if q.Max > 0 && all >= q.Max {
			tag, err := tx.Exec(ctx, `DELETE FROM oauth_clients WHERE id IN (SELECT id FROM oauth_clients c WHERE
				NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id) AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.client_id = c.id)
				ORDER BY created_at LIMIT $1)`, all-q.Max+1)
			if err != nil {
				return err
			}
			if tag.RowsAffected() < int64(all-q.Max+1) {
				return mcpdir.ErrClientsFull
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, created_at, network) VALUES ($1, $2, $3, $4, $5)`,
			c.ID, c.Name, c.RedirectURIs, sqlstore.UnixNano(c.CreatedAt), c.Network)
		return err
	})
}

// Client implements mcpdir.OAuthStore.
func (db *DB) Client(ctx context.Context, id string) (*mcpdir.OAuthClient, error) {
	c := mcpdir.OAuthClient{ID: id}
	var created int64
	err := db.pool.QueryRow(ctx, `SELECT name, redirect_uris, created_at FROM oauth_clients WHERE id = $1`, id).Scan(&c.Name, &c.RedirectURIs, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, mcpdir.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read client: %w", err)
	}
	c.CreatedAt = sqlstore.FromUnixNano(created)
	return &c, nil
}

// inTx runs fn in a transaction; an *mcpdir.Error from fn is returned as
// it is, anything else wrapped with what.
func (db *DB) inTx(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, db.pool, fn)
	if _, ok := err.(*mcpdir.Error); ok || err == nil {
		return err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// RedeemCode implements mcpdir.OAuthStore.
func (db *DB) RedeemCode(ctx context.Context, hash []byte, g *mcpdir.OAuthGrant, tokens ...*mcpdir.OAuthToken) error {
	return db.inTx(ctx, "redeem code", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE oauth_codes SET grant_id = $1 WHERE hash = $2 AND grant_id = ''`, g.ID, hash)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return mcpdir.ErrNotFound
		}
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_grants (id, client_id, client_name, account_id, created_at) VALUES ($1, $2, $3, $4, $5)`,
			g.ID, g.ClientID, g.ClientName, g.AccountID, sqlstore.UnixNano(g.CreatedAt)); err != nil {
			return err
		}
		return insertTokens(ctx, tx, tokens)
	})
}

func insertTokens(ctx context.Context, tx pgx.Tx, tokens []*mcpdir.OAuthToken) error {
	for _, t := range tokens {
		if _, err := tx.Exec(ctx, `INSERT INTO oauth_tokens (hash, grant_id, refresh, expires_at) VALUES ($1, $2, $3, $4)`,
			t.Hash, t.GrantID, t.Refresh, sqlstore.UnixNano(t.ExpiresAt)); err != nil {
			return err
		}
	}
	return nil
}

// RotateRefresh implements mcpdir.OAuthStore.
func (db *DB) RotateRefresh(ctx context.Context, hash []byte, at time.Time, tokens ...*mcpdir.OAuthToken) error {
	return db.inTx(ctx, "rotate refresh token", func(tx pgx.Tx) error {
		var grantID string
		err := tx.QueryRow(ctx, `UPDATE oauth_tokens SET rotated_at = $1 WHERE hash = $2 AND refresh AND rotated_at = 0 RETURNING grant_id`,
			at.UnixNano(), hash).Scan(&grantID)
		if errors.Is(err, pgx.ErrNoRows) {
			return mcpdir.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_tokens WHERE grant_id = $1 AND NOT refresh`, grantID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_tokens WHERE grant_id = $1 AND refresh AND rotated_at != 0 AND rotated_at <
			(SELECT rotated_at FROM oauth_tokens WHERE grant_id = $1 AND refresh AND rotated_at != 0 ORDER BY rotated_at DESC LIMIT 1 OFFSET $2)`,
			grantID, mcpdir.RotatedRefreshKept-1); err != nil {
			return err
		}
		if err := insertTokens(ctx, tx, tokens); err != nil {
			return err
		}
		return recordChanges(ctx, tx, mcpdir.ChangeGrantTokens, []string{grantID}, at)
	})
}

// RevokeGrant implements mcpdir.OAuthStore.
func (db *DB) RevokeGrant(ctx context.Context, id string, at time.Time) error {
	return db.inTx(ctx, "revoke grant", func(tx pgx.Tx) error { return revokeGrants(ctx, tx, `id = $2`, id, at) })
}

// revokeGrants revokes the grants where cond holds (on $2), deletes their
// tokens and records the changes.
func revokeGrants(ctx context.Context, tx pgx.Tx, cond string, arg any, at time.Time) error {
	rows, err := tx.Query(ctx, `UPDATE oauth_grants SET revoked_at = $1 WHERE revoked_at = 0 AND `+cond+` RETURNING id`, at.UnixNano(), arg)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM oauth_tokens WHERE grant_id = ANY($1)`, ids); err != nil {
		return err
	}
	return recordChanges(ctx, tx, mcpdir.ChangeGrant, ids, at)
}

// TouchGrants implements mcpdir.OAuthStore.
func (db *DB) TouchGrants(ctx context.Context, lastUsed map[string]time.Time) error {
	if err := db.touch(ctx, "oauth_grants", "id", lastUsed); err != nil {
		return fmt.Errorf("touch grants: %w", err)
	}
	return nil
}

// SweepOAuth implements mcpdir.OAuthStore.
func (db *DB) SweepOAuth(ctx context.Context, now, unusedBefore time.Time) error {
	return db.inTx(ctx, "sweep oauth", func(tx pgx.Tx) error {
		day := now.Add(-24 * time.Hour).UnixNano()
		batch := &pgx.Batch{}
		batch.Queue(`DELETE FROM oauth_tokens WHERE expires_at < $1`, now.UnixNano())
		batch.Queue(`DELETE FROM oauth_codes WHERE expires_at < $1`, day)
		batch.Queue(`DELETE FROM oauth_grants WHERE revoked_at != 0 AND revoked_at < $1`, day)
		batch.Queue(`DELETE FROM oauth_clients c WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)
			AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.client_id = c.id)`, unusedBefore.UnixNano())
		return tx.SendBatch(ctx, batch).Close()
	})
}
