package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// RecordLiveCheck implements mcpdir.LiveStore: in one transaction, the
// endpoint's previous check is read so that c follows it (its tools and
// their changes), and c replaces it.
func (s *DB) RecordLiveCheck(ctx context.Context, id string, c *mcpdir.LiveCheck) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record live check: %w", err)
	}
	defer tx.Rollback()
	tools, details, err := sqlstore.FollowStored(tx.QueryRowContext(ctx, `SELECT `+sqlstore.LiveColumns+` FROM live_checks WHERE entry_id = ?`, id), sql.ErrNoRows, c)
	if err != nil {
		return fmt.Errorf("record live check: %w", err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO live_checks (entry_id, url, status, checked_at, latency_ns, protocol_version, tools, details)
		SELECT id, ?, ?, ?, ?, ?, ?, ? FROM entries WHERE id = ?
		ON CONFLICT (entry_id) DO UPDATE SET url = excluded.url, status = excluded.status, checked_at = excluded.checked_at,
			latency_ns = excluded.latency_ns, protocol_version = excluded.protocol_version, tools = excluded.tools,
			details = excluded.details`,
		c.URL, c.Status, c.CheckedAt.UnixNano(), int64(c.Latency), c.ProtocolVersion, tools, details, id)
	if err != nil {
		return fmt.Errorf("record live check: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return mcpdir.ErrNotFound
	}
	if err := recordChange(ctx, tx, mcpdir.ChangeEntry, id, s.now()); err != nil {
		return fmt.Errorf("record live check: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record live check: %w", err)
	}
	return nil
}
