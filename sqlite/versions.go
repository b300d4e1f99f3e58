package sqlite

import (
	"context"
	"fmt"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// PutVersions implements mcpdir.VersionStore.
func (s *DB) PutVersions(ctx context.Context, versions []*mcpdir.ServerVersion) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("put versions: %w", err)
	}
	defer tx.Rollback()
	put, err := tx.PrepareContext(ctx, `INSERT INTO server_versions
		(name, version, entry_key, server, status, status_message, published_at, updated_at, status_changed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name, version) DO UPDATE SET entry_key = excluded.entry_key, server = excluded.server,
			status = excluded.status, status_message = excluded.status_message, published_at = excluded.published_at,
			updated_at = excluded.updated_at, status_changed_at = excluded.status_changed_at`)
	if err != nil {
		return fmt.Errorf("put versions: %w", err)
	}
	defer put.Close()
	now := s.now()
	names := map[string]bool{}
	for _, v := range versions {
		if _, err := put.ExecContext(ctx, v.Name, v.Version, v.EntryKey, []byte(v.Server), v.Status, v.StatusMessage,
			sqlstore.UnixNano(v.PublishedAt), sqlstore.UnixNano(v.UpdatedAt), sqlstore.UnixNano(v.StatusChangedAt)); err != nil {
			return fmt.Errorf("put version %s %s: %w", v.Name, v.Version, err)
		}
		if !names[v.Name] {
			names[v.Name] = true
			if err := recordChange(ctx, tx, mcpdir.ChangeVersion, v.Name, now); err != nil {
				return fmt.Errorf("put versions: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("put versions: %w", err)
	}
	return nil
}

// ServerVersions implements mcpdir.VersionStore.
func (s *DB) ServerVersions(ctx context.Context, names []string) ([]*mcpdir.ServerVersion, error) {
	var out []*mcpdir.ServerVersion
	err := inChunks(names, func(in string, args []any) error {
		return s.ReadVersions(ctx, `SELECT `+sqlstore.VersionColumns+`, server FROM server_versions WHERE name IN (`+in+`) ORDER BY name`, args, true,
			func(v *mcpdir.ServerVersion) error { out = append(out, v); return nil })
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
