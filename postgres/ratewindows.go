package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir/sqlstore"
)

// The rate windows of a server without Redis (the times of the requests
// each key made in its window), kept so that a restart does not hand every
// key a fresh budget, as the embedded store keeps them: the server writes
// what changed every few seconds and when it stops; each key's times are
// one BYTEA of big-endian Unix nanoseconds. (With Redis the windows live
// there, shared by the replicas, and these are not used.)

// SaveRateWindows writes the windows of the keys given (an empty one is
// removed) under the limiter's name, and forgets keys idle for a day.
func (db *DB) SaveRateWindows(ctx context.Context, limiter string, logs map[string][]time.Time) error {
	batch := &pgx.Batch{}
	for key, log := range logs {
		if len(log) == 0 {
			batch.Queue(`DELETE FROM rate_windows WHERE limiter = $1 AND key = $2`, limiter, key)
			continue
		}
		batch.Queue(`INSERT INTO rate_windows (limiter, key, times, last_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (limiter, key) DO UPDATE SET times = excluded.times, last_at = excluded.last_at`,
			limiter, key, sqlstore.EncodeTimes(log), log[len(log)-1].UnixNano())
	}
	batch.Queue(`DELETE FROM rate_windows WHERE last_at < $1`, db.now().Add(-24*time.Hour).UnixNano())
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		return tx.SendBatch(ctx, batch).Close()
	})
	if err != nil {
		return fmt.Errorf("save rate windows: %w", err)
	}
	return nil
}
