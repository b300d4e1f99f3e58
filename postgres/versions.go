package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// PutVersions implements mcpdir.VersionStore: one transaction, one batch.
func (db *DB) PutVersions(ctx context.Context, versions []*mcpdir.ServerVersion) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		var batch pgx.Batch
		for _, v := range versions {
			batch.Queue(`INSERT INTO server_versions
				(name, version, entry_key, server, status, status_message, published_at, updated_at, status_changed_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (name, version) DO UPDATE SET entry_key = excluded.entry_key, server = excluded.server,
					status = excluded.status, status_message = excluded.status_message, published_at = excluded.published_at,
					updated_at = excluded.updated_at, status_changed_at = excluded.status_changed_at`,
				v.Name, v.Version, v.EntryKey, []byte(v.Server), v.Status, v.StatusMessage,
				sqlstore.UnixNano(v.PublishedAt), sqlstore.UnixNano(v.UpdatedAt), sqlstore.UnixNano(v.StatusChangedAt))
		}
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
				return err
			}
		}
		return recordChanges(ctx, tx, mcpdir.ChangeVersion, mcpdir.VersionNames(versions), db.now())
	})
	if err != nil {
		return fmt.Errorf("put versions: %w", err)
	}
	return nil
}

// ServerVersions implements mcpdir.VersionStore.
func (db *DB) ServerVersions(ctx context.Context, names []string) ([]*mcpdir.ServerVersion, error) {
	var out []*mcpdir.ServerVersion
	err := db.ReadVersions(ctx, `SELECT `+sqlstore.VersionColumns+`, server
		FROM server_versions WHERE name = ANY($1) ORDER BY name`, []any{names}, true,
		func(v *mcpdir.ServerVersion) error { out = append(out, v); return nil })
	return out, err
}
