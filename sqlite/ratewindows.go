package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir/sqlstore"
)

// The embedded server's rate windows (the times of the requests each key
// made in its window), kept so that a restart does not hand every key a
// fresh budget. The server writes what changed every few seconds and when
// it stops; each key's times are one blob of big-endian Unix nanoseconds.

// SaveRateWindows writes the windows of the keys given (an empty one is
// removed) under the limiter's name, and forgets keys idle for a day.
func (s *DB) SaveRateWindows(ctx context.Context, limiter string, logs map[string][]time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save rate windows: %w", err)
	}
	defer tx.Rollback()
	for key, log := range logs {
		if len(log) == 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM rate_windows WHERE limiter = ? AND key = ?`, limiter, key); err != nil {
				return fmt.Errorf("save rate windows: %w", err)
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rate_windows (limiter, key, times, last_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (limiter, key) DO UPDATE SET times = excluded.times, last_at = excluded.last_at`,
			limiter, key, sqlstore.EncodeTimes(log), log[len(log)-1].UnixNano()); err != nil {
			return fmt.Errorf("save rate windows: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM rate_windows WHERE last_at < ?`, s.now().Add(-24*time.Hour).UnixNano()); err != nil {
		return fmt.Errorf("save rate windows: %w", err)
	}
	return tx.Commit()
}

// AllRateWindows reads every limiter's windows as one map (what a limiter
// shared by every use, as Redis is, would hold): for a move to Redis.
func (s *DB) AllRateWindows(ctx context.Context) (map[string][]time.Time, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, times FROM rate_windows`)
	if err != nil {
		return nil, fmt.Errorf("read rate windows: %w", err)
	}
	defer rows.Close()
	return sqlstore.ScanRateWindows(rows)
}
