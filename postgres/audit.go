package postgres

import (
	"context"
	"fmt"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// AppendAudit implements mcpdir.AuditStore.
func (db *DB) AppendAudit(ctx context.Context, r mcpdir.AuditRecord) error {
	at := r.At
	if at.IsZero() {
		at = db.now()
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO audit (at, actor, action, target, changes) VALUES ($1, $2, $3, $4, $5)`,
		sqlstore.UnixNano(at), r.Actor, r.Action, r.Target, string(r.Changes))
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}
