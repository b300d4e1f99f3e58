package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Bulk runs fn in one transaction for a load that writes the tables
// directly (`mcpdir migrate`). The transaction holds the change feed's lock
// from the start, so the changes it writes take sequence numbers in commit
// order like any other write, and replicas are woken when it commits.
func (db *DB) Bulk(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(feedLock)); err != nil {
			return fmt.Errorf("lock the change feed: %w", err)
		}
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('mcpdir_changes', '')`)
		return err
	})
}

// CountRows returns how many rows a table holds (for `mcpdir migrate`'s
// read-back; table is one of the store's own names).
func (db *DB) CountRows(ctx context.Context, table string) (int64, error) {
	var n int64
	if err := db.pool.QueryRow(ctx, `SELECT COUNT(*) FROM `+pgx.Identifier{table}.Sanitize()).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", table, err)
	}
	return n, nil
}
