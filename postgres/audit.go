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
		unixNano(at), r.Actor, r.Action, r.Target, string(r.Changes))
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}

// Audit implements mcpdir.AuditStore.
func (db *DB) Audit(ctx context.Context, before int64, limit int) ([]mcpdir.AuditRecord, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := db.pool.Query(ctx, `SELECT seq, at, actor, action, target, changes FROM audit WHERE seq < $1 ORDER BY seq DESC LIMIT $2`,
		before, min(max(limit, 1), mcpdir.MaxAuditPage))
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	defer rows.Close()
	return sqlstore.ScanAudit(rows)
}
