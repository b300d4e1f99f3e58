package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// RecordLiveCheck implements mcpdir.LiveStore: in one transaction, the
// endpoint's previous check is read (and locked) so that c follows it (its
// tools and their changes), and c replaces it.
func (db *DB) RecordLiveCheck(ctx context.Context, id string, c *mcpdir.LiveCheck) error {
	found := true
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tools, details, err := sqlstore.FollowStored(tx.QueryRow(ctx, `SELECT `+sqlstore.LiveColumns+` FROM live_checks WHERE entry_id = $1 FOR UPDATE`, id), pgx.ErrNoRows, c)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO live_checks (entry_id, url, status, checked_at, latency_ns, protocol_version, tools, details)
			SELECT id, $1, $2, $3, $4, $5, $6, $7 FROM entries WHERE id = $8
			ON CONFLICT (entry_id) DO UPDATE SET url = excluded.url, status = excluded.status, checked_at = excluded.checked_at,
				latency_ns = excluded.latency_ns, protocol_version = excluded.protocol_version, tools = excluded.tools,
				details = excluded.details`,
			c.URL, c.Status, c.CheckedAt.UnixNano(), int64(c.Latency), c.ProtocolVersion, tools, details, id)
		if err != nil {
			return err
		}
		if found = tag.RowsAffected() > 0; !found {
			return nil
		}
		return recordChanges(ctx, tx, mcpdir.ChangeEntry, []string{id}, db.now())
	})
	if err != nil {
		return fmt.Errorf("record live check: %w", err)
	}
	if !found {
		return mcpdir.ErrNotFound
	}
	return nil
}
