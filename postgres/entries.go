package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// UpsertEntries implements mcpdir.EntryStore: one transaction, one read of
// the stored hashes and one batch of writes, whatever the number of entries.
func (db *DB) UpsertEntries(ctx context.Context, entries []*mcpdir.Entry) (mcpdir.ImportResult, error) {
	var res mcpdir.ImportResult
	type row struct {
		id, key          string
		doc, sum         []byte
		created, updated int64
	}
	rows := make([]row, 0, len(entries))
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		key := e.NaturalKey()
		doc, err := sqlstore.EncodeDoc(e)
		if err != nil {
			return res, fmt.Errorf("upsert entry %q: %w", e.Name, err)
		}
		sum := sha256.Sum256(doc)
		created, updated := sqlstore.InsertTimes(e, db.now().UTC())
		rows = append(rows, row{id: mcpdir.EntryID(key), key: key, doc: doc, sum: sum[:], created: created.UnixNano(), updated: updated.UnixNano()})
		ids = append(ids, rows[len(rows)-1].id)
	}
	now := db.now().UTC().UnixNano()
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		res = mcpdir.ImportResult{}
		have := map[string][]byte{}
		r, err := tx.Query(ctx, `SELECT id, content_hash FROM entries WHERE id = ANY($1) FOR UPDATE`, ids)
		if err != nil {
			return err
		}
		for r.Next() {
			var id string
			var sum []byte
			if err := r.Scan(&id, &sum); err != nil {
				return err
			}
			have[id] = sum
		}
		if err := r.Err(); err != nil {
			return err
		}
		var batch pgx.Batch
		var changed []string
		for _, w := range rows {
			switch sum, ok := have[w.id]; {
			case !ok:
				batch.Queue(`INSERT INTO entries (id, natural_key, doc, content_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`, w.id, w.key, w.doc, w.sum, w.created, w.updated)
				res.Added++
			case bytes.Equal(sum, w.sum):
				res.Unchanged++
				continue
			default:
				batch.Queue(`UPDATE entries SET doc = $1, content_hash = $2, updated_at = $3 WHERE id = $4`, w.doc, w.sum, now, w.id)
				res.Updated++
			}
			have[w.id] = w.sum
			changed = append(changed, w.id)
		}
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
				return err
			}
		}
		return recordChanges(ctx, tx, mcpdir.ChangeEntry, changed, db.now())
	})
	if err != nil {
		return mcpdir.ImportResult{}, fmt.Errorf("upsert entries: %w", err)
	}
	return res, nil
}

// EntriesByID implements mcpdir.EntryStore.
func (db *DB) EntriesByID(ctx context.Context, ids []string) ([]*mcpdir.Entry, error) {
	var out []*mcpdir.Entry
	err := db.scanEntries(ctx, selectEntries+` WHERE e.id = ANY($1)`, []any{ids},
		func(e *mcpdir.Entry) error { out = append(out, e); return nil })
	return out, err
}

// AllEntries implements mcpdir.EntryStore.
func (db *DB) AllEntries(ctx context.Context, fn func(*mcpdir.Entry) error) error {
	return db.scanEntries(ctx, selectEntries, nil, fn)
}

// selectEntries reads entries with their latest live checks.
const selectEntries = sqlstore.SelectEntries

func (db *DB) scanEntries(ctx context.Context, q string, args []any, fn func(*mcpdir.Entry) error) error {
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("read entries: %w", err)
	}
	defer rows.Close()
	return sqlstore.ScanEntries(rows, fn)
}

// DeleteEntries implements mcpdir.EntryStore.
func (db *DB) DeleteEntries(ctx context.Context, ids []string) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM entries WHERE id = ANY($1) RETURNING id`, ids)
		if err != nil {
			return err
		}
		gone, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		n = len(gone)
		return recordChanges(ctx, tx, mcpdir.ChangeEntry, gone, db.now())
	})
	if err != nil {
		return 0, fmt.Errorf("delete entries: %w", err)
	}
	return n, nil
}
