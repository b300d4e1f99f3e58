package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// CreateClient implements mcpdir.OAuthStore.
// Transactions begin IMMEDIATE (a write lock), so the counts and the
// insert are atomic among registrations.
func (s *DB) CreateClient(ctx context.Context, c *mcpdir.OAuthClient, q mcpdir.ClientQuota) error {
	uris, err := json.Marshal(c.RedirectURIs)
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	return s.inTx(ctx, "create client", func(tx *sql.Tx) error {
		var all, mine int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE network = ?) FROM oauth_clients`, c.Network).Scan(&all, &mine); err != nil {
			return err
		}
		if q.PerNetwork > 0 && mine >= q.PerNetwork {
			return mcpdir.ErrNetworkFull
		}
		if q.Max > 0 && all >= q.Max {
			res, err := tx.ExecContext(ctx, `DELETE FROM oauth_clients WHERE id IN (SELECT id FROM oauth_clients c WHERE
				NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id) AND NOT EXISTS (SELECT 1 FROM oauth_codes k WHERE k.client_id = c.id)
				ORDER BY created_at LIMIT ?)`, all-q.Max+1)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n < int64(all-q.Max+1) {
				return mcpdir.ErrClientsFull
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, created_at, network) VALUES (?, ?, ?, ?, ?)`,
			c.ID, c.Name, string(uris), sqlstore.UnixNano(c.CreatedAt), c.Network)
		return err
	})
}

// Client implements mcpdir.OAuthStore.
func (s *DB) Client(ctx context.Context, id string) (*mcpdir.OAuthClient, error) {
	c := mcpdir.OAuthClient{ID: id}
	var uris string
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT name, redirect_uris, created_at FROM oauth_clients WHERE id = ?`, id).Scan(&c.Name, &uris, &created)
	if isNoRows(err) {
		return nil, mcpdir.ErrNotFound
	}
	if err == nil {
		err = json.Unmarshal([]byte(uris), &c.RedirectURIs)
	}
	if err != nil {
		return nil, fmt.Errorf("read client: %w", err)
	}
	c.CreatedAt = sqlstore.FromUnixNano(created)
	return &c, nil
}

// RedeemCode implements mcpdir.OAuthStore.
func (s *DB) RedeemCode(ctx context.Context, hash []byte, g *mcpdir.OAuthGrant, tokens ...*mcpdir.OAuthToken) error {
	return s.inTx(ctx, "redeem code", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_codes SET grant_id = ? WHERE hash = ? AND grant_id = ''`, g.ID, hash)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return mcpdir.ErrNotFound
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_grants (id, client_id, client_name, account_id, created_at) VALUES (?, ?, ?, ?, ?)`,
			g.ID, g.ClientID, g.ClientName, g.AccountID, sqlstore.UnixNano(g.CreatedAt)); err != nil {
			return err
		}
		return insertTokens(ctx, tx, tokens)
	})
}

func insertTokens(ctx context.Context, tx *sql.Tx, tokens []*mcpdir.OAuthToken) error {
	for _, t := range tokens {
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, grant_id, refresh, expires_at) VALUES (?, ?, ?, ?)`,
			t.Hash, t.GrantID, t.Refresh, sqlstore.UnixNano(t.ExpiresAt)); err != nil {
			return err
		}
	}
	return nil
}

// inTx runs fn in a transaction; an *mcpdir.Error from fn is returned as
// it is, anything else wrapped with what.
func (s *DB) inTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		if _, ok := err.(*mcpdir.Error); ok {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// RotateRefresh implements mcpdir.OAuthStore.
func (s *DB) RotateRefresh(ctx context.Context, hash []byte, at time.Time, tokens ...*mcpdir.OAuthToken) error {
	return s.inTx(ctx, "rotate refresh token", func(tx *sql.Tx) error {
		var grantID string
		err := tx.QueryRowContext(ctx, `UPDATE oauth_tokens SET rotated_at = ? WHERE hash = ? AND refresh AND rotated_at = 0 RETURNING grant_id`,
			at.UnixNano(), hash).Scan(&grantID)
		if isNoRows(err) {
			return mcpdir.ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE grant_id = ? AND NOT refresh`, grantID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE grant_id = ? AND refresh AND rotated_at != 0 AND rotated_at <
			(SELECT rotated_at FROM oauth_tokens WHERE grant_id = ? AND refresh AND rotated_at != 0 ORDER BY rotated_at DESC LIMIT 1 OFFSET ?)`,
			grantID, grantID, mcpdir.RotatedRefreshKept-1); err != nil {
			return err
		}
		if err := insertTokens(ctx, tx, tokens); err != nil {
			return err
		}
		return recordChange(ctx, tx, mcpdir.ChangeGrantTokens, grantID, at)
	})
}

// RevokeGrant implements mcpdir.OAuthStore.
func (s *DB) RevokeGrant(ctx context.Context, id string, at time.Time) error {
	return s.inTx(ctx, "revoke grant", func(tx *sql.Tx) error { return revokeGrants(ctx, tx, `id = ?`, id, at) })
}

// revokeGrants revokes the grants where cond holds (on arg), deletes their
// tokens and records the changes.
func revokeGrants(ctx context.Context, tx *sql.Tx, cond string, arg any, at time.Time) error {
	ids, err := column(ctx, tx, `UPDATE oauth_grants SET revoked_at = ? WHERE revoked_at = 0 AND `+cond+` RETURNING id`, at.UnixNano(), arg)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE grant_id = ?`, id); err != nil {
			return err
		}
		if err := recordChange(ctx, tx, mcpdir.ChangeGrant, id, at); err != nil {
			return err
		}
	}
	return nil
}

// TouchGrants implements mcpdir.OAuthStore.
func (s *DB) TouchGrants(ctx context.Context, lastUsed map[string]time.Time) error {
	return s.touch(ctx, "touch grants", "oauth_grants", "id", lastUsed)
}

// SweepOAuth implements mcpdir.OAuthStore.
func (s *DB) SweepOAuth(ctx context.Context, now, unusedBefore time.Time) error {
	return s.inTx(ctx, "sweep oauth", func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`DELETE FROM oauth_tokens WHERE expires_at < ?`, []any{now.UnixNano()}},
			{`DELETE FROM oauth_codes WHERE expires_at < ?`, []any{now.Add(-24 * time.Hour).UnixNano()}},
			{`DELETE FROM oauth_grants WHERE revoked_at != 0 AND revoked_at < ?`, []any{now.Add(-24 * time.Hour).UnixNano()}},
			{`DELETE FROM oauth_clients WHERE created_at < ? AND id NOT IN (SELECT client_id FROM oauth_grants) AND id NOT IN (SELECT client_id FROM oauth_codes)`, []any{unusedBefore.UnixNano()}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return err
			}
		}
		return nil
	})
}
