package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// CreateAccount implements mcpdir.AccountStore.
func (db *DB) CreateAccount(ctx context.Context, a *mcpdir.Account) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`,
		a.ID, a.Email, a.PasswordHash, sqlstore.UnixNano(a.CreatedAt))
	return createErr(err, "create account", mcpdir.Errorf(mcpdir.ECodeConflict, "an account with this email exists"))
}

// DisableAccount implements mcpdir.AccountStore.
func (db *DB) DisableAccount(ctx context.Context, email string, at time.Time) error {
	return db.inTx(ctx, "disable account", func(tx pgx.Tx) error {
		id, err := accountID(ctx, tx, email)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET disabled_at = $1 WHERE id = $2 AND disabled_at = 0`, at.UnixNano(), id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM web_sessions WHERE account_id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM oauth_codes WHERE account_id = $1 AND grant_id = ''`, id); err != nil {
			return err
		}
		if err := revokeGrants(ctx, tx, `account_id = $2`, id, at); err != nil {
			return err
		}
		return recordKeysOf(ctx, tx, id, at)
	})
}

// EnableAccount implements mcpdir.AccountStore.
func (db *DB) EnableAccount(ctx context.Context, email string) error {
	return db.inTx(ctx, "enable account", func(tx pgx.Tx) error {
		id, err := accountID(ctx, tx, email)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET disabled_at = 0 WHERE id = $1`, id); err != nil {
			return err
		}
		return recordKeysOf(ctx, tx, id, db.now())
	})
}

// accountID is the id of the account with email; mcpdir.ErrNotFound if
// there is none.
func accountID(ctx context.Context, tx pgx.Tx, email string) (id string, err error) {
	err = tx.QueryRow(ctx, `SELECT id FROM accounts WHERE email = $1`, email).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", mcpdir.ErrNotFound
	}
	return id, err
}

// recordKeysOf writes a key change for each key of an account whose state
// changed, so that every replica re-reads them.
func recordKeysOf(ctx context.Context, tx pgx.Tx, accountID string, at time.Time) error {
	rows, err := tx.Query(ctx, `SELECT prefix FROM api_keys WHERE owner = $1`, accountID)
	if err != nil {
		return err
	}
	prefixes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	return recordChanges(ctx, tx, mcpdir.ChangeKey, prefixes, at)
}
