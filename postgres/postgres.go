// Package postgres is the store for many replicas: everything a server
// keeps, in PostgreSQL, through pgx. Every replica and every CLI command
// given the same database URL shares it. It holds what package sqlite holds,
// table for table (entries and live checks, versions, keys, accounts,
// OAuth, state, rate windows, audit, insight; the shared suite in
// storetest holds both to one behaviour), with migrations under an
// advisory lock (this file), bulk writes by COPY (bulk.go), and a change
// feed in commit order that LISTEN/NOTIFY announces to every replica.
// What it asks of PostgreSQL as SQLite is asked (most reads, the
// one-statement writes, the audit trail) is written once, in
// sqlstore.Queries, which DB embeds with its driver (this file).
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// DB is the PostgreSQL store. It implements mcpdir.Store.
type DB struct {
	sqlstore.Queries
	pool *pgxpool.Pool
	now  func() time.Time
}

// dialect is PostgreSQL's, as sqlstore writes SQL.
var dialect = sqlstore.Dialect{Int64: "BIGINT", Placeholder: func(n int) string { return "$" + strconv.Itoa(n) }}

// driver is the pool as the queries the stores share use it.
type driver struct{ pool *pgxpool.Pool }

func (d driver) Query(ctx context.Context, query string, args []any, read func(sqlstore.Rows) error) error {
	rows, err := d.pool.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return read(rows)
}

func (d driver) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return row{d.pool.QueryRow(ctx, query, args...)}
}

func (d driver) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := d.pool.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

// row is a row whose absence is mcpdir.ErrNotFound.
type row struct{ pgx.Row }

func (r row) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return mcpdir.ErrNotFound
	}
	return err
}

var _ mcpdir.Store = (*DB)(nil)

// Lock keys for pg_advisory_lock: one for migrations, one that orders the
// change feed.
const (
	migrateLock = 0x6d63706469720001 // "mcpdir" + 1
	feedLock    = 0x6d63706469720002
	clientsLock = 0x6d63706469720010 // orders OAuth registrations (cmd holds 0003 and 0004)
)

// Open connects to the database at url (postgres://…) and migrates its
// schema. Replicas starting at once migrate one at a time.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	cfg.MaxConns = max(cfg.MaxConns, 8)
	cfg.ConnConfig.ConnectTimeout = cmp.Or(cfg.ConnConfig.ConnectTimeout, 5*time.Second)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	db := &DB{pool: pool, now: time.Now}
	db.Queries = sqlstore.Queries{Driver: driver{pool}, Dialect: dialect, Now: db.now}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the connection pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// migrations are applied in order, each once; never edit a released one.
// Times are Unix nanoseconds (0: none), as in the SQLite store; an entry's
// doc is its JSON as the store hashes it.
var migrations = []string{
	`CREATE TABLE entries (
		id           TEXT PRIMARY KEY,
		natural_key  TEXT NOT NULL UNIQUE,
		doc          BYTEA NOT NULL,
		content_hash BYTEA NOT NULL,
		created_at   BIGINT NOT NULL,
		updated_at   BIGINT NOT NULL
	);
	CREATE TABLE api_keys (
		prefix       TEXT PRIMARY KEY,
		name         TEXT NOT NULL,
		scope        TEXT NOT NULL,
		hash         BYTEA NOT NULL UNIQUE,
		rate_limit   INTEGER NOT NULL,
		created_at   BIGINT NOT NULL,
		expires_at   BIGINT NOT NULL DEFAULT 0,
		last_used_at BIGINT NOT NULL DEFAULT 0,
		revoked_at   BIGINT NOT NULL DEFAULT 0
	);
	CREATE TABLE changes (
		seq  BIGSERIAL PRIMARY KEY,
		kind TEXT NOT NULL,
		ref  TEXT NOT NULL,
		at   BIGINT NOT NULL
	);`,
	`CREATE TABLE state (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);`,
	`CREATE TABLE accounts (
		id            TEXT PRIMARY KEY,
		email         TEXT NOT NULL UNIQUE,
		password_hash TEXT NOT NULL,
		created_at    BIGINT NOT NULL,
		disabled_at   BIGINT NOT NULL DEFAULT 0
	);
	CREATE TABLE web_sessions (
		hash       BYTEA PRIMARY KEY,
		account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
		created_at BIGINT NOT NULL,
		last_seen  BIGINT NOT NULL
	);
	ALTER TABLE api_keys ADD COLUMN owner TEXT NOT NULL DEFAULT '';`,
	`CREATE TABLE live_checks (
		entry_id         TEXT PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
		url              TEXT NOT NULL,
		status           TEXT NOT NULL,
		checked_at       BIGINT NOT NULL,
		latency_ns       BIGINT NOT NULL,
		protocol_version TEXT NOT NULL,
		tools            BYTEA NOT NULL
	);`,
	`CREATE TABLE oauth_clients (
		id            TEXT PRIMARY KEY,
		name          TEXT NOT NULL,
		redirect_uris TEXT[] NOT NULL,
		created_at    BIGINT NOT NULL
	);
	CREATE TABLE oauth_codes (
		hash         BYTEA PRIMARY KEY,
		client_id    TEXT NOT NULL,
		client_name  TEXT NOT NULL,
		account_id   TEXT NOT NULL,
		redirect_uri TEXT NOT NULL,
		challenge    TEXT NOT NULL,
		expires_at   BIGINT NOT NULL,
		grant_id     TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE oauth_grants (
		id           TEXT PRIMARY KEY,
		client_id    TEXT NOT NULL,
		client_name  TEXT NOT NULL,
		account_id   TEXT NOT NULL,
		created_at   BIGINT NOT NULL,
		last_used_at BIGINT NOT NULL DEFAULT 0,
		revoked_at   BIGINT NOT NULL DEFAULT 0
	);
	CREATE INDEX oauth_grants_account ON oauth_grants (account_id);
	CREATE TABLE oauth_tokens (
		hash       BYTEA PRIMARY KEY,
		grant_id   TEXT NOT NULL,
		refresh    BOOLEAN NOT NULL,
		expires_at BIGINT NOT NULL
	);
	CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);`,
	`CREATE TABLE server_versions (
		name              TEXT NOT NULL,
		version           TEXT NOT NULL,
		entry_key         TEXT NOT NULL,
		server            BYTEA NOT NULL,
		status            TEXT NOT NULL,
		status_message    TEXT NOT NULL DEFAULT '',
		published_at      BIGINT NOT NULL,
		updated_at        BIGINT NOT NULL,
		status_changed_at BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (name, version)
	);`,
	// What a live check found besides its status, version and tools
	// (sqlstore.EncodeLiveDetails); empty for the checks made before.
	`ALTER TABLE live_checks ADD COLUMN details BYTEA NOT NULL DEFAULT '';`,
	// The network an OAuth client was registered from: its share of the
	// clients is bounded (mcpdir.ClientQuota).
	`ALTER TABLE oauth_clients ADD COLUMN network TEXT NOT NULL DEFAULT '';
	CREATE INDEX oauth_clients_network ON oauth_clients (network);
	CREATE INDEX oauth_clients_created ON oauth_clients (created_at);
	CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
	CREATE INDEX oauth_codes_client ON oauth_codes (client_id);`,
	// Refresh tokens that a refresh replaced stay, marked, so that a
	// replay is recognised (and revokes the grant) until they expire.
	`ALTER TABLE oauth_tokens ADD COLUMN rotated_at BIGINT NOT NULL DEFAULT 0;`,
	// The rate windows of a server without Redis, kept across restarts as
	// the embedded store keeps them (ratewindows.go).
	`CREATE TABLE rate_windows (
		limiter TEXT NOT NULL,
		key     TEXT NOT NULL,
		times   BYTEA NOT NULL,
		last_at BIGINT NOT NULL,
		PRIMARY KEY (limiter, key)
	);`,
	// The audit trail of admins' and publishers' actions (sqlstore.Queries).
	`CREATE TABLE audit (
		seq     BIGSERIAL PRIMARY KEY,
		at      BIGINT NOT NULL,
		actor   TEXT NOT NULL,
		action  TEXT NOT NULL,
		target  TEXT NOT NULL,
		changes TEXT NOT NULL DEFAULT ''
	);`,
	// An account's role: "admin" for one the operator promoted.
	`ALTER TABLE accounts ADD COLUMN role TEXT NOT NULL DEFAULT '';`,
	// The operator's insight, in hourly buckets (insight.go): counts
	// per door, per normalised query (never with a key, an account or an
	// address) and per key.
	`CREATE TABLE insight_doors (
		hour     BIGINT NOT NULL,
		door     TEXT NOT NULL,
		searches BIGINT NOT NULL DEFAULT 0,
		empty    BIGINT NOT NULL DEFAULT 0,
		limited  BIGINT NOT NULL DEFAULT 0,
		refused  BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (hour, door)
	);
	CREATE TABLE insight_queries (
		hour      BIGINT NOT NULL,
		query     TEXT NOT NULL,
		count     BIGINT NOT NULL DEFAULT 0,
		empty     BIGINT NOT NULL DEFAULT 0,
		last_seen BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (hour, query)
	);
	CREATE TABLE insight_keys (
		hour     BIGINT NOT NULL,
		key      TEXT NOT NULL,
		requests BIGINT NOT NULL DEFAULT 0,
		limited  BIGINT NOT NULL DEFAULT 0,
		PRIMARY KEY (hour, key)
	);`,
}

// migrate applies what migrations the database lacks, under an advisory
// lock so that replicas starting together take turns.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(migrateLock)); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, int64(migrateLock))
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		return sqlstore.Migrate(ctx, migrateTx{tx}, dialect,
			migrations, db.now())
	})
}

// migrateTx is a transaction as the migration runner takes it.
type migrateTx struct{ tx pgx.Tx }

func (t migrateTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.Exec(ctx, q, args...)
	return err
}

func (t migrateTx) QueryInt(ctx context.Context, q string) (n int, err error) {
	err = t.tx.QueryRow(ctx, q).Scan(&n)
	return n, err
}

// recordChanges writes changes of one transaction to the feed, last in the
// transaction. The feed lock, held until commit, makes sequence numbers
// follow commit order: a follower reading seq > n never misses a change
// that commits later with a smaller number.
func recordChanges(ctx context.Context, tx pgx.Tx, kind string, refs []string, at time.Time) error {
	if len(refs) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(feedLock)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO changes (kind, ref, at) SELECT $1, unnest($2::text[]), $3`, kind, refs, at.UnixNano()); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `SELECT pg_notify('mcpdir_changes', '')`)
	return err
}

// PruneChanges implements mcpdir.ChangeFeed.
func (db *DB) PruneChanges(ctx context.Context, before time.Time) (int64, error) {
	tag, err := db.pool.Exec(ctx, `DELETE FROM changes WHERE at < $1 AND seq < (SELECT MAX(seq) FROM changes)`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune changes: %w", err)
	}
	return tag.RowsAffected(), nil
}

// createErr is what a create answers for err: conflict where the row broke
// a unique constraint (another has its key), else err wrapped with what.
func createErr(err error, what string, conflict error) error {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Code == "23505":
		return conflict
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Notifications implements changefeed.Notifier: a value after each
// committed write, from a connection that LISTENs (and reconnects) until
// ctx ends.
func (db *DB) Notifications(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	go func() {
		for ctx.Err() == nil {
			if err := db.listen(ctx, ch); err != nil && ctx.Err() == nil {
				select { // the poll covers the gap; try again shortly
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}
	}()
	return ch
}

func (db *DB) listen(ctx context.Context, ch chan<- struct{}) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `LISTEN mcpdir_changes`); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `UNLISTEN mcpdir_changes`)
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			return err
		}
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// SetState implements mcpdir.StateStore.
func (db *DB) SetState(ctx context.Context, key, value string) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
			return err
		}
		return recordChanges(ctx, tx, mcpdir.ChangeState, []string{key}, db.now())
	})
	if err != nil {
		return fmt.Errorf("write state %s: %w", key, err)
	}
	return nil
}

// TryLock takes a lock named by key for as long as the returned unlock is
// not called, if no other process holds it: a job that one replica at a
// time must run.
func (db *DB) TryLock(ctx context.Context, key int64) (unlock func(), ok bool, err error) {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&ok); err != nil || !ok {
		conn.Release()
		return nil, false, err
	}
	return func() {
		conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, key)
		conn.Release()
	}, true, nil
}
