package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// CreateAccount implements mcpdir.AccountStore.
func (s *DB) CreateAccount(ctx context.Context, a *mcpdir.Account) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO accounts (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)`,
		a.ID, a.Email, a.PasswordHash, sqlstore.UnixNano(a.CreatedAt))
	return createErr(err, "create account", mcpdir.Errorf(mcpdir.ECodeConflict, "an account with this email exists"))
}

// DisableAccount implements mcpdir.AccountStore.
func (s *DB) DisableAccount(ctx context.Context, email string, at time.Time) error {
	return s.inTx(ctx, "disable account", func(tx *sql.Tx) error {
		id, err := accountID(ctx, tx, email)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET disabled_at = ? WHERE id = ? AND disabled_at = 0`, at.UnixNano(), id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE account_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM oauth_codes WHERE account_id = ? AND grant_id = ''`, id); err != nil {
			return err
		}
		if err := revokeGrants(ctx, tx, `account_id = ?`, id, at); err != nil {
			return err
		}
		return recordKeysOf(ctx, tx, id, at)
	})
}

// EnableAccount implements mcpdir.AccountStore.
func (s *DB) EnableAccount(ctx context.Context, email string) error {
	return s.inTx(ctx, "enable account", func(tx *sql.Tx) error {
		id, err := accountID(ctx, tx, email)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE accounts SET disabled_at = 0 WHERE id = ?`, id); err != nil {
			return err
		}
		return recordKeysOf(ctx, tx, id, s.now())
	})
}

// accountID is the id of the account with email; mcpdir.ErrNotFound if
// there is none.
func accountID(ctx context.Context, tx *sql.Tx, email string) (id string, err error) {
	err = tx.QueryRowContext(ctx, `SELECT id FROM accounts WHERE email = ?`, email).Scan(&id)
	if isNoRows(err) {
		return "", mcpdir.ErrNotFound
	}
	return id, err
}

// recordKeysOf writes a key change for each key of an account whose state
// changed, so that every server re-reads them.
func recordKeysOf(ctx context.Context, tx *sql.Tx, accountID string, at time.Time) error {
	prefixes, err := column(ctx, tx, `SELECT prefix FROM api_keys WHERE owner = ?`, accountID)
	if err != nil {
		return err
	}
	for _, p := range prefixes {
		if err := recordChange(ctx, tx, mcpdir.ChangeKey, p, at); err != nil {
			return err
		}
	}
	return nil
}

// column reads the one column of strings that q answers in tx; its rows
// are closed before tx is written to again.
func column(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlstore.Collect(rows, func(r sqlstore.Row) (s string, err error) {
		err = r.Scan(&s)
		return s, err
	})
}
