// Package sqlite is the embedded store: everything a server keeps, in one
// SQLite database file in the data directory, through a pure-Go driver (no
// cgo), with migrations applied at start. It holds entries and their live
// checks (entries.go, live.go), registry servers' versions (versions.go),
// API keys (keys.go), accounts and web sessions (accounts.go), the OAuth
// server's clients, codes, grants and tokens (oauth.go), the change feed
// and small state (this file), the embedded server's rate windows
// (ratewindows.go), the insight's hourly counts (insight.go) and the
// audit trail; consistent snapshots for backups (snapshot.go); and the
// data directory's lock that keeps migrate from copying a store a server
// writes to (hold_unix.go). What it asks of SQLite as PostgreSQL is asked
// (most reads, the one-statement writes, the audit trail) is written once,
// in sqlstore.Queries, which DB embeds with its driver (this file).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// FileName is the database file inside the data directory.
const FileName = "mcpdir.db"

// DB is the SQLite store. It implements mcpdir.EntryStore, mcpdir.KeyStore
// and mcpdir.ChangeFeed. Several processes may open the same file: the CLI
// writes while a server runs, and the server follows the change feed.
type DB struct {
	sqlstore.Queries
	db  *sql.DB
	now func() time.Time
}

// dialect is SQLite's, as sqlstore writes SQL.
var dialect = sqlstore.Dialect{Int64: "INTEGER", Placeholder: func(int) string { return "?" }}

// driver is the database as the queries the stores share use it.
type driver struct{ db *sql.DB }

func (d driver) Query(ctx context.Context, query string, args []any, read func(sqlstore.Rows) error) error {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return read(rows)
}

func (d driver) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return row{d.db.QueryRowContext(ctx, query, args...)}
}

func (d driver) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := d.db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// row is a row whose absence is mcpdir.ErrNotFound.
type row struct{ *sql.Row }

func (r row) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if isNoRows(err) {
		return mcpdir.ErrNotFound
	}
	return err
}

// Open opens (creating if needed) the store in dataDir and migrates its schema.
func Open(ctx context.Context, dataDir string) (*DB, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(dataDir, FileName)
	// WAL lets readers run beside the one writer; synchronous=FULL makes a
	// commit durable once acknowledged, even across power loss; immediate
	// transactions take the write lock up front, so two processes never
	// deadlock upgrading a read lock; busy_timeout makes a writer wait for
	// the other process rather than fail.
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetConnMaxIdleTime(time.Minute)
	s := &DB{db: db, now: time.Now}
	s.Queries = sqlstore.Queries{Driver: driver{db}, Dialect: dialect, Now: s.now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *DB) Close() error { return s.db.Close() }

// Ping checks that the database answers.
func (s *DB) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// CheckIntegrity runs SQLite's integrity check.
func (s *DB) CheckIntegrity(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity check: %s", res)
	}
	return nil
}

// migrations are applied in order, each once; never edit a released one.
var migrations = []string{
	`CREATE TABLE entries (
		id           TEXT PRIMARY KEY,
		natural_key  TEXT NOT NULL UNIQUE,
		doc          BLOB NOT NULL,
		content_hash BLOB NOT NULL,
		created_at   INTEGER NOT NULL,
		updated_at   INTEGER NOT NULL
	);
	CREATE TABLE api_keys (
		prefix       TEXT PRIMARY KEY,
		name         TEXT NOT NULL,
		scope        TEXT NOT NULL,
		hash         BLOB NOT NULL UNIQUE,
		rate_limit   INTEGER NOT NULL,
		created_at   INTEGER NOT NULL,
		expires_at   INTEGER NOT NULL DEFAULT 0,
		last_used_at INTEGER NOT NULL DEFAULT 0,
		revoked_at   INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE changes (
		seq  INTEGER PRIMARY KEY AUTOINCREMENT,
		kind TEXT NOT NULL,
		ref  TEXT NOT NULL,
		at   INTEGER NOT NULL
	);`,
	`CREATE TABLE state (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);`,
	`CREATE TABLE accounts (
		id            TEXT PRIMARY KEY,
		email         TEXT NOT NULL UNIQUE,
		password_hash TEXT NOT NULL,
		created_at    INTEGER NOT NULL,
		disabled_at   INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE web_sessions (
		hash       BLOB PRIMARY KEY,
		account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
		created_at INTEGER NOT NULL,
		last_seen  INTEGER NOT NULL
	);
	ALTER TABLE api_keys ADD COLUMN owner TEXT NOT NULL DEFAULT '';`,
	`CREATE TABLE live_checks (
		entry_id         TEXT PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
		url              TEXT NOT NULL,
		status           TEXT NOT NULL,
		checked_at       INTEGER NOT NULL,
		latency_ns       INTEGER NOT NULL,
		protocol_version TEXT NOT NULL,
		tools            BLOB NOT NULL
	);`,
	`CREATE TABLE oauth_clients (
		id            TEXT PRIMARY KEY,
		name          TEXT NOT NULL,
		redirect_uris TEXT NOT NULL,
		created_at    INTEGER NOT NULL
	);
	CREATE TABLE oauth_codes (
		hash         BLOB PRIMARY KEY,
		client_id    TEXT NOT NULL,
		client_name  TEXT NOT NULL,
		account_id   TEXT NOT NULL,
		redirect_uri TEXT NOT NULL,
		challenge    TEXT NOT NULL,
		expires_at   INTEGER NOT NULL,
		grant_id     TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE oauth_grants (
		id           TEXT PRIMARY KEY,
		client_id    TEXT NOT NULL,
		client_name  TEXT NOT NULL,
		account_id   TEXT NOT NULL,
		created_at   INTEGER NOT NULL,
		last_used_at INTEGER NOT NULL DEFAULT 0,
		revoked_at   INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX oauth_grants_account ON oauth_grants (account_id);
	CREATE TABLE oauth_tokens (
		hash       BLOB PRIMARY KEY,
		grant_id   TEXT NOT NULL,
		refresh    INTEGER NOT NULL,
		expires_at INTEGER NOT NULL
	);
	CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);`,
	`CREATE TABLE server_versions (
		name              TEXT NOT NULL,
		version           TEXT NOT NULL,
		entry_key         TEXT NOT NULL,
		server            BLOB NOT NULL,
		status            TEXT NOT NULL,
		status_message    TEXT NOT NULL DEFAULT '',
		published_at      INTEGER NOT NULL,
		updated_at        INTEGER NOT NULL,
		status_changed_at INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (name, version)
	);`,
	// What a live check found besides its status, version and tools
	// (sqlstore.EncodeLiveDetails); empty for the checks made before.
	`ALTER TABLE live_checks ADD COLUMN details BLOB NOT NULL DEFAULT x'';`,
	// The network an OAuth client was registered from: its share of the
	// clients is bounded (mcpdir.ClientQuota).
	`ALTER TABLE oauth_clients ADD COLUMN network TEXT NOT NULL DEFAULT '';
	CREATE INDEX oauth_clients_network ON oauth_clients (network);
	CREATE INDEX oauth_clients_created ON oauth_clients (created_at);
	CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
	CREATE INDEX oauth_codes_client ON oauth_codes (client_id);`,
	// Refresh tokens that a refresh replaced stay, marked, so that a
	// replay is recognised (and revokes the grant) until they expire.
	`ALTER TABLE oauth_tokens ADD COLUMN rotated_at INTEGER NOT NULL DEFAULT 0;`,
	// The embedded server's rate windows, kept across restarts (ratewindows.go).
	`CREATE TABLE rate_windows (
		limiter TEXT NOT NULL,
		key     TEXT NOT NULL,
		times   BLOB NOT NULL,
		last_at INTEGER NOT NULL,
		PRIMARY KEY (limiter, key)
	);`,
	// The audit trail of admins' and publishers' actions (sqlstore.Queries).
	`CREATE TABLE audit (
		seq     INTEGER PRIMARY KEY,
		at      INTEGER NOT NULL,
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
		hour     INTEGER NOT NULL,
		door     TEXT NOT NULL,
		searches INTEGER NOT NULL DEFAULT 0,
		empty    INTEGER NOT NULL DEFAULT 0,
		limited  INTEGER NOT NULL DEFAULT 0,
		refused  INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (hour, door)
	);
	CREATE TABLE insight_queries (
		hour      INTEGER NOT NULL,
		query     TEXT NOT NULL,
		count     INTEGER NOT NULL DEFAULT 0,
		empty     INTEGER NOT NULL DEFAULT 0,
		last_seen INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (hour, query)
	);
	CREATE TABLE insight_keys (
		hour     INTEGER NOT NULL,
		key      TEXT NOT NULL,
		requests INTEGER NOT NULL DEFAULT 0,
		limited  INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (hour, key)
	);`,
}

func (s *DB) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if err := sqlstore.Migrate(ctx, migrateTx{tx}, dialect,
		migrations, s.now()); err != nil {
		return err
	}
	return tx.Commit()
}

// migrateTx is a transaction as the migration runner takes it.
type migrateTx struct{ tx *sql.Tx }

func (t migrateTx) Exec(ctx context.Context, q string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, q, args...)
	return err
}

func (t migrateTx) QueryInt(ctx context.Context, q string) (n int, err error) {
	err = t.tx.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

func recordChange(ctx context.Context, tx *sql.Tx, kind, ref string, at time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO changes (kind, ref, at) VALUES (?, ?, ?)`, kind, ref, at.UnixNano())
	return err
}

var errNoRows = sql.ErrNoRows

func isNoRows(err error) bool { return errors.Is(err, errNoRows) }

// createErr is what a create answers for err: conflict where the row broke
// a unique constraint (another has its key), else err wrapped with what.
func createErr(err error, what string, conflict error) error {
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), "UNIQUE"):
		return conflict
	}
	return fmt.Errorf("%s: %w", what, err)
}

// SetState implements mcpdir.StateStore.
func (s *DB) SetState(ctx context.Context, key, value string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write state %s: %w", key, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value); err != nil {
		return fmt.Errorf("write state %s: %w", key, err)
	}
	if err := recordChange(ctx, tx, mcpdir.ChangeState, key, s.now()); err != nil {
		return fmt.Errorf("write state %s: %w", key, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write state %s: %w", key, err)
	}
	return nil
}
