// Package migrate copies the embedded SQLite store into PostgreSQL, table
// by table and in one PostgreSQL transaction: what `mcpdir migrate` does
// when a directory outgrows one machine.
//
// Every table of the SQLite schema must have a plan here (copied, or
// skipped with a reason): a table added later without one stops the copy
// rather than being left behind.
package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir/sqlite"
)

// Source is a consistent read of the embedded store (*sqlite.Snapshot).
type Source interface {
	Tables(ctx context.Context) ([]sqlite.Table, error)
	Count(ctx context.Context, table string) (int64, error)
	Rows(ctx context.Context, table string, columns []string, fn func([]any) error) error
}

// Target is the PostgreSQL store (*postgres.DB), its schema current.
type Target interface {
	// Bulk runs fn in one transaction that writes the change feed in order.
	Bulk(ctx context.Context, fn func(tx pgx.Tx) error) error
	// CountRows reads back how many rows a table holds.
	CountRows(ctx context.Context, table string) (int64, error)
}

// plan says what becomes of one SQLite table.
type plan struct {
	table string
	// skip, if set, is why the table is not copied.
	skip string
	// renumber is a column the target numbers anew (the change feed's
	// sequence): rows are inserted in its order, without it.
	renumber string
	// parent, with --merge, is the condition a row must meet for its
	// foreign key to hold (its parent may be one the target kept instead).
	parent string
}

// plans are in copying order: parents before the rows that refer to them,
// the change feed last.
var plans = []plan{
	{table: "entries"},
	{table: "live_checks", parent: "entry_id IN (SELECT id FROM entries)"},
	{table: "server_versions"},
	{table: "accounts"},
	{table: "web_sessions", parent: "account_id IN (SELECT id FROM accounts)"},
	{table: "api_keys"},
	{table: "oauth_clients"},
	{table: "oauth_codes"},
	{table: "oauth_grants"},
	{table: "oauth_tokens"},
	{table: "state"},
	{table: "audit", renumber: "seq"},
	{table: "changes", renumber: "seq"},
	{table: "schema_migrations", skip: "each store keeps its own schema version"},
	// The server's budgets: a server on PostgreSQL without Redis keeps
	// them there, as the embedded one does (with --redis-url, they are
	// copied to Redis too, where replicas count them).
	{table: "rate_windows"},
	// The operator's insight, in hourly buckets.
	{table: "insight_doors"},
	{table: "insight_queries"},
	{table: "insight_keys"},
}

// Options change how Run copies.
type Options struct {
	// Merge adds to a target that holds rows already: a row whose key (or
	// other unique value) the target has is kept as the target has it.
	// Without Merge, a target with any row is refused.
	Merge bool
}

// Count is what happened to one table.
type Count struct {
	Table  string
	Source int64 // rows in the embedded store
	Copied int64 // rows inserted into PostgreSQL
	Before int64 // rows PostgreSQL held before
	After  int64 // rows PostgreSQL holds after, read back
	// Skipped, if set, is why the table was not copied.
	Skipped string
}

// Kept is how many source rows were not inserted because the target had
// their key already (only with --merge).
func (c Count) Kept() int64 { return c.Source - c.Copied }

// NotEmptyError refuses a target that holds rows, without --merge.
type NotEmptyError struct {
	Tables []Count // the tables that hold rows, Before set
}

func (e *NotEmptyError) Error() string {
	var parts []string
	for _, c := range e.Tables {
		parts = append(parts, fmt.Sprintf("%s %d", c.Table, c.Before))
	}
	return fmt.Sprintf("the PostgreSQL database is not empty (%s): migrate into a new database, or pass --merge to add to what it holds", strings.Join(parts, ", "))
}

// Run copies every table of src into dst in one transaction of dst and
// returns the counts, verified: each table's count read back in the
// transaction is what it held plus what was copied (and, without Merge,
// what the source holds), and again after the commit.
func Run(ctx context.Context, src Source, dst Target, opts Options) ([]Count, error) {
	tables, err := src.Tables(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkPlans(tables); err != nil {
		return nil, err
	}
	columns := map[string][]string{}
	for _, t := range tables {
		columns[t.Name] = t.Columns
	}
	counts := make([]Count, len(plans))
	for i, p := range plans {
		counts[i] = Count{Table: p.table, Skipped: p.skip}
		if counts[i].Source, err = src.Count(ctx, p.table); err != nil {
			return nil, err
		}
	}
	err = dst.Bulk(ctx, func(tx pgx.Tx) error {
		var full []Count
		for i, p := range plans {
			if p.skip != "" {
				continue
			}
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM `+pgx.Identifier{p.table}.Sanitize()).Scan(&counts[i].Before); err != nil {
				return fmt.Errorf("count %s in PostgreSQL: %w", p.table, err)
			}
			if counts[i].Before > 0 {
				full = append(full, counts[i])
			}
		}
		if len(full) > 0 && !opts.Merge {
			return &NotEmptyError{Tables: full}
		}
		for i, p := range plans {
			if p.skip != "" {
				continue
			}
			n, err := copyTable(ctx, src, tx, p, columns[p.table], counts[i].Source, opts.Merge)
			if err != nil {
				return fmt.Errorf("copy %s: %w", p.table, err)
			}
			counts[i].Copied = n
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM `+pgx.Identifier{p.table}.Sanitize()).Scan(&counts[i].After); err != nil {
				return fmt.Errorf("count %s in PostgreSQL: %w", p.table, err)
			}
			if c := counts[i]; c.After != c.Before+c.Copied || (!opts.Merge && c.Copied != c.Source) {
				return fmt.Errorf("verify %s: SQLite %d rows, copied %d, PostgreSQL %d before and %d after: nothing was committed", p.table, c.Source, c.Copied, c.Before, c.After)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Read back once more, outside the transaction: what is committed.
	for i, p := range plans {
		if p.skip != "" {
			continue
		}
		n, err := dst.CountRows(ctx, p.table)
		if err != nil {
			return counts, fmt.Errorf("read back %s: %w", p.table, err)
		}
		if n != counts[i].After {
			return counts, fmt.Errorf("read back %s: PostgreSQL holds %d rows after the commit, %d in the transaction: was something else writing to it?", p.table, n, counts[i].After)
		}
	}
	return counts, nil
}

// checkPlans fails on a SQLite table without a plan: copying all but it
// would lose its rows without a word.
func checkPlans(tables []sqlite.Table) error {
	var unplanned []string
	for _, t := range tables {
		if !slices.ContainsFunc(plans, func(p plan) bool { return p.table == t.Name }) {
			unplanned = append(unplanned, t.Name)
		}
	}
	if len(unplanned) > 0 {
		return fmt.Errorf("the SQLite store has tables this mcpdir cannot migrate (%s): nothing was copied; this is a bug in mcpdir, please report it", strings.Join(unplanned, ", "))
	}
	for _, p := range plans {
		if !slices.ContainsFunc(tables, func(t sqlite.Table) bool { return t.Name == p.table }) {
			return fmt.Errorf("the SQLite store has no table %s: is it a mcpdir data directory?", p.table)
		}
	}
	return nil
}

// targetColumn is a PostgreSQL column and its type.
type targetColumn struct {
	dataType string // information_schema's data_type: bigint, bytea, ARRAY, …
	udt      string // its element type for arrays: _text
}

func targetColumns(ctx context.Context, tx pgx.Tx, table string) (map[string]targetColumn, error) {
	rows, err := tx.Query(ctx, `SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`, table)
	if err != nil {
		return nil, err
	}
	out := map[string]targetColumn{}
	for rows.Next() {
		var name string
		var c targetColumn
		if err := rows.Scan(&name, &c.dataType, &c.udt); err != nil {
			rows.Close()
			return nil, err
		}
		out[name] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("PostgreSQL has no table %s", table)
	}
	return out, nil
}

// batchRows is how many rows go to PostgreSQL in one COPY.
const batchRows = 1000

// copyTable copies one table through a temporary table (COPY is fast but
// cannot skip conflicts; INSERT … SELECT can) and returns the rows inserted.
func copyTable(ctx context.Context, src Source, tx pgx.Tx, p plan, cols []string, want int64, merge bool) (int64, error) {
	tcols, err := targetColumns(ctx, tx, p.table)
	if err != nil {
		return 0, err
	}
	var missing []string
	for _, c := range cols {
		if _, ok := tcols[c]; !ok {
			missing = append(missing, c)
		}
	}
	for c := range tcols {
		if !slices.Contains(cols, c) {
			missing = append(missing, c+" (PostgreSQL only)")
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return 0, fmt.Errorf("the columns differ between SQLite and PostgreSQL: %s", strings.Join(missing, ", "))
	}
	tmp := pgx.Identifier{"migrate_" + p.table}
	if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE `+tmp.Sanitize()+` (LIKE `+pgx.Identifier{p.table}.Sanitize()+` INCLUDING DEFAULTS) ON COMMIT DROP`); err != nil {
		return 0, err
	}
	var batch [][]any
	var loaded int64
	flush := func() error {
		n, err := tx.CopyFrom(ctx, tmp, cols, pgx.CopyFromRows(batch))
		loaded += n
		batch = batch[:0]
		return err
	}
	err = src.Rows(ctx, p.table, cols, func(row []any) error {
		for i, v := range row {
			c, err := convert(v, tcols[cols[i]])
			if err != nil {
				return fmt.Errorf("column %s: %w", cols[i], err)
			}
			row[i] = c
		}
		if batch = append(batch, row); len(batch) == batchRows {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if err != nil {
		return 0, err
	}
	if loaded != want {
		return 0, fmt.Errorf("read %d rows of the %d SQLite counted", loaded, want)
	}
	insert := slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return c == p.renumber })
	quoted := make([]string, len(insert))
	for i, c := range insert {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	list := strings.Join(quoted, ", ")
	q := `INSERT INTO ` + pgx.Identifier{p.table}.Sanitize() + ` (` + list + `) SELECT ` + list + ` FROM ` + tmp.Sanitize()
	if merge && p.parent != "" {
		q += ` WHERE ` + p.parent
	}
	if p.renumber != "" {
		q += ` ORDER BY ` + pgx.Identifier{p.renumber}.Sanitize()
	}
	if merge {
		q += ` ON CONFLICT DO NOTHING`
	}
	tag, err := tx.Exec(ctx, q)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `DROP TABLE `+tmp.Sanitize()); err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// convert turns a value as SQLite stores it into one for the PostgreSQL
// column: the two schemas differ only in these types.
func convert(v any, c targetColumn) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.dataType {
	case "bigint", "integer", "smallint":
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case "text":
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	case "bytea":
		switch b := v.(type) {
		case []byte:
			if b == nil { // an empty BLOB, which is not NULL
				b = []byte{}
			}
			return b, nil
		case string:
			return []byte(b), nil
		}
	case "boolean":
		if n, ok := v.(int64); ok {
			return n != 0, nil
		}
	case "ARRAY":
		// SQLite keeps a list as a JSON array (oauth_clients.redirect_uris).
		var s string
		switch t := v.(type) {
		case string:
			s = t
		case []byte:
			s = string(t)
		}
		if c.udt == "_text" && s != "" {
			var list []string
			if err := json.Unmarshal([]byte(s), &list); err != nil {
				return nil, fmt.Errorf("not a JSON list of strings: %w", err)
			}
			if list == nil {
				list = []string{}
			}
			return list, nil
		}
	}
	return nil, fmt.Errorf("no conversion from SQLite %T to PostgreSQL %s (%s)", v, c.dataType, c.udt)
}

// IsNotEmpty reports whether err is the refusal of a non-empty target.
func IsNotEmpty(err error) bool {
	var ne *NotEmptyError
	return errors.As(err, &ne)
}
