package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// Tx is what the migration runner needs of a store's transaction.
type Tx interface {
	// Exec runs a statement.
	Exec(ctx context.Context, query string, args ...any) error
	// QueryInt reads the one integer a query answers.
	QueryInt(ctx context.Context, query string) (int, error)
}

// Dialect is how a store's SQL says what the runner writes: the type of a
// 64-bit integer column and the n-th (1-based) placeholder.
type Dialect struct {
	Int64       string
	Placeholder func(n int) string
}

// Migrate applies migrations in order, each once, in tx: the version
// reached is kept in schema_migrations. A database at a version newer
// than migrations know is refused (an older binary must not touch it).
func Migrate(ctx context.Context, tx Tx, d Dialect, migrations []string, now time.Time) error {
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at `+d.Int64+` NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	have, err := tx.QueryInt(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if have > len(migrations) {
		return fmt.Errorf("migrate: database schema version %d is newer than this binary knows (%d): upgrade mcpdir", have, len(migrations))
	}
	insert := `INSERT INTO schema_migrations (version, applied_at) VALUES (` + d.Placeholder(1) + `, ` + d.Placeholder(2) + `)`
	for v := have + 1; v <= len(migrations); v++ {
		if err := tx.Exec(ctx, migrations[v-1]); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
		if err := tx.Exec(ctx, insert, v, now.UnixNano()); err != nil {
			return fmt.Errorf("migrate to version %d: %w", v, err)
		}
	}
	return nil
}
