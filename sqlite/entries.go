package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// UpsertEntries implements mcpdir.EntryStore.
func (s *DB) UpsertEntries(ctx context.Context, entries []*mcpdir.Entry) (mcpdir.ImportResult, error) {
	var res mcpdir.ImportResult
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("upsert entries: %w", err)
	}
	defer tx.Rollback()
	sel, err := tx.PrepareContext(ctx, `SELECT content_hash FROM entries WHERE id = ?`)
	if err != nil {
		return res, fmt.Errorf("upsert entries: %w", err)
	}
	defer sel.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO entries (id, natural_key, doc, content_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return res, fmt.Errorf("upsert entries: %w", err)
	}
	defer ins.Close()
	upd, err := tx.PrepareContext(ctx, `UPDATE entries SET doc = ?, content_hash = ?, updated_at = ? WHERE id = ?`)
	if err != nil {
		return res, fmt.Errorf("upsert entries: %w", err)
	}
	defer upd.Close()

	now := s.now().UTC()
	for _, e := range entries {
		key := e.NaturalKey()
		id := mcpdir.EntryID(key)
		doc, err := sqlstore.EncodeDoc(e)
		if err != nil {
			return res, fmt.Errorf("upsert entry %q: %w", e.Name, err)
		}
		sum := sha256.Sum256(doc)
		var have []byte
		switch err := sel.QueryRowContext(ctx, id).Scan(&have); {
		case isNoRows(err):
			created, updated := sqlstore.InsertTimes(e, now)
			if _, err := ins.ExecContext(ctx, id, key, doc, sum[:], created.UnixNano(), updated.UnixNano()); err != nil {
				return res, fmt.Errorf("insert entry %q: %w", e.Name, err)
			}
			res.Added++
		case err != nil:
			return res, fmt.Errorf("read entry %q: %w", e.Name, err)
		case bytes.Equal(have, sum[:]):
			res.Unchanged++
			continue
		default:
			if _, err := upd.ExecContext(ctx, doc, sum[:], now.UnixNano(), id); err != nil {
				return res, fmt.Errorf("update entry %q: %w", e.Name, err)
			}
			res.Updated++
		}
		if err := recordChange(ctx, tx, mcpdir.ChangeEntry, id, now); err != nil {
			return res, fmt.Errorf("record change: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return mcpdir.ImportResult{}, fmt.Errorf("commit entries: %w", err)
	}
	return res, nil
}

// EntriesByID implements mcpdir.EntryStore.
func (s *DB) EntriesByID(ctx context.Context, ids []string) ([]*mcpdir.Entry, error) {
	var out []*mcpdir.Entry
	err := inChunks(ids, func(in string, args []any) error {
		return s.scanEntries(ctx, selectEntries+` WHERE e.id IN (`+in+`)`, args, func(e *mcpdir.Entry) error { out = append(out, e); return nil })
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// inChunks calls read with each chunk of keys as arguments, in chunks
// well under SQLite's bound-parameter limit, and their placeholders
// ("?,?,?").
func inChunks(keys []string, read func(placeholders string, args []any) error) error {
	const chunk = 500
	for len(keys) > 0 {
		n := min(chunk, len(keys))
		args := make([]any, n)
		for i, k := range keys[:n] {
			args[i] = k
		}
		keys = keys[n:]
		if err := read("?"+strings.Repeat(",?", n-1), args); err != nil {
			return err
		}
	}
	return nil
}

// AllEntries implements mcpdir.EntryStore.
func (s *DB) AllEntries(ctx context.Context, fn func(*mcpdir.Entry) error) error {
	return s.scanEntries(ctx, selectEntries, nil, fn)
}

// selectEntries reads entries with their latest live checks.
const selectEntries = sqlstore.SelectEntries

func (s *DB) scanEntries(ctx context.Context, q string, args []any, fn func(*mcpdir.Entry) error) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read entries: %w", err)
	}
	defer rows.Close()
	return sqlstore.ScanEntries(rows, fn)
}

// PruneChanges implements mcpdir.ChangeFeed.
func (s *DB) PruneChanges(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM changes WHERE at < ? AND seq < (SELECT MAX(seq) FROM changes)`, before.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("prune changes: %w", err)
	}
	return res.RowsAffected()
}

// DeleteEntries implements mcpdir.EntryStore.
func (s *DB) DeleteEntries(ctx context.Context, ids []string) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("delete entries: %w", err)
	}
	defer tx.Rollback()
	n := 0
	now := s.now()
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `DELETE FROM entries WHERE id = ?`, id)
		if err != nil {
			return 0, fmt.Errorf("delete entries: %w", err)
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
			if err := recordChange(ctx, tx, mcpdir.ChangeEntry, id, now); err != nil {
				return 0, fmt.Errorf("delete entries: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("delete entries: %w", err)
	}
	return n, nil
}
