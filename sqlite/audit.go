package sqlite

import (
	"context"
	"fmt"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// AppendAudit implements mcpdir.AuditStore.
func (s *DB) AppendAudit(ctx context.Context, r mcpdir.AuditRecord) error {
	at := r.At
	if at.IsZero() {
		at = s.now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO audit (at, actor, action, target, changes) VALUES (?, ?, ?, ?, ?)`,
		unixNano(at), r.Actor, r.Action, r.Target, string(r.Changes))
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}

// Audit implements mcpdir.AuditStore.
func (s *DB) Audit(ctx context.Context, before int64, limit int) ([]mcpdir.AuditRecord, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, at, actor, action, target, changes FROM audit WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
		before, min(max(limit, 1), mcpdir.MaxAuditPage))
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	defer rows.Close()
	return sqlstore.ScanAudit(rows)
}
