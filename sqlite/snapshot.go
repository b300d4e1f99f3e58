package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Table is one table of the store and its columns, in schema order.
type Table struct {
	Name    string
	Columns []string
}

// Snapshot is a consistent read of the whole store: one read transaction,
// which writers on other connections (a running server) do not disturb.
// It is what `mcpdir migrate` copies from.
type Snapshot struct {
	tx *sql.Tx
}

// Snapshot begins a consistent read of the store; Close ends it.
func (s *DB) Snapshot(ctx context.Context) (*Snapshot, error) {
	// A read-only transaction begins deferred (not immediate, as writes do),
	// so it never takes the write lock from a running server.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return &Snapshot{tx: tx}, nil
}

// Close ends the read.
func (sn *Snapshot) Close() error { return sn.tx.Rollback() }

// Tables lists every table in the database file except SQLite's own
// (sqlite_*), schema_migrations included, in name order.
func (sn *Snapshot) Tables(ctx context.Context) ([]Table, error) {
	rows, err := sn.tx.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list tables: %w", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	out := make([]Table, 0, len(names))
	for _, n := range names {
		cols, err := sn.columns(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, Table{Name: n, Columns: cols})
	}
	return out, nil
}

func (sn *Snapshot) columns(ctx context.Context, table string) ([]string, error) {
	rows, err := sn.tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", table, err)
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// Count returns how many rows table holds.
func (sn *Snapshot) Count(ctx context.Context, table string) (int64, error) {
	var n int64
	if err := sn.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quote(table)).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", table, err)
	}
	return n, nil
}

// Rows calls fn with each row of table, its values in the order of
// columns: int64, float64, string, []byte or nil, as SQLite stores them.
// fn may keep the slice.
func (sn *Snapshot) Rows(ctx context.Context, table string, columns []string, fn func([]any) error) error {
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = quote(c)
	}
	rows, err := sn.tx.QueryContext(ctx, `SELECT `+strings.Join(quoted, ", ")+` FROM `+quote(table)+` ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(columns))
		ptrs := make([]any, len(columns))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", table, err)
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	return nil
}

// quote makes a name an SQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Backup writes a consistent copy of the store to path while others read
// and write it (SQLite's VACUUM INTO, one read transaction), then checks
// the copy's integrity. The copy is written beside path and renamed into
// place, so path holds either the old file or a whole new one; an existing
// file at path is replaced. It returns the copy's size in bytes.
func (s *DB) Backup(ctx context.Context, path string) (int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return 0, fmt.Errorf("backup: %s is a directory: name the file to write", path)
	}
	dir := filepath.Dir(abs)
	f, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	// The copy holds password and key hashes: only its owner reads it,
	// from its first byte. CreateTemp makes the file 0600 whatever the
	// umask, and VACUUM INTO writes into an empty file it is given (its
	// journal, if any, takes the file's mode).
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	if err := os.Chmod(tmp, 0o600); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if backupWritten != nil {
		backupWritten(tmp)
	}
	if err := checkFile(ctx, tmp); err != nil {
		return 0, fmt.Errorf("backup: the copy: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp, abs); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	return fi.Size(), nil
}

// backupWritten, when set (by a test), is called with the copy's path
// as soon as SQLite has written it.
var backupWritten func(tmp string)

// checkFile runs the integrity check on a database file other than the store's.
func checkFile(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity check: %s", res)
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
