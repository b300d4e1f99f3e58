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
		sqlstore.UnixNano(at), r.Actor, r.Action, r.Target, string(r.Changes))
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}
