package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// AddInsights implements mcpdir.InsightStore: every count is added to the
// stored one, in one transaction.
func (s *DB) AddInsights(ctx context.Context, b mcpdir.InsightBatch) error {
	b = b.Merged()
	if b.Empty() {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("add insights: %w", err)
	}
	defer tx.Rollback()
	exec := func(q string, rows int, args func(i int) []any) error {
		if rows == 0 {
			return nil
		}
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range rows {
			if _, err := st.ExecContext(ctx, args(i)...); err != nil {
				return err
			}
		}
		return nil
	}
	err = exec(`INSERT INTO insight_doors (hour, door, searches, empty, limited, refused) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (hour, door) DO UPDATE SET searches = searches + excluded.searches, empty = empty + excluded.empty,
		limited = limited + excluded.limited, refused = refused + excluded.refused`, len(b.Buckets), func(i int) []any {
		x := b.Buckets[i]
		return []any{x.Hour.UnixNano(), x.Door, x.Searches, x.Empty, x.Limited, x.Refused}
	})
	if err == nil {
		err = exec(`INSERT INTO insight_queries (hour, query, count, empty, last_seen) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (hour, query) DO UPDATE SET count = count + excluded.count, empty = empty + excluded.empty,
			last_seen = MAX(last_seen, excluded.last_seen)`, len(b.Queries), func(i int) []any {
			x := b.Queries[i]
			return []any{x.Hour.UnixNano(), x.Query, x.Count, x.Empty, sqlstore.UnixNano(x.LastSeen)}
		})
	}
	if err == nil {
		err = exec(`INSERT INTO insight_keys (hour, key, requests, limited) VALUES (?, ?, ?, ?)
			ON CONFLICT (hour, key) DO UPDATE SET requests = requests + excluded.requests, limited = limited + excluded.limited`,
			len(b.Keys), func(i int) []any {
				x := b.Keys[i]
				return []any{x.Hour.UnixNano(), x.Key, x.Requests, x.Limited}
			})
	}
	if err != nil {
		return fmt.Errorf("add insights: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("add insights: %w", err)
	}
	return nil
}

// insightQueries are what ReadInsights reads.
var insightQueries = sqlstore.InsightQueries{
	Doors: `SELECT hour, door, searches, empty, limited, refused FROM insight_doors WHERE hour >= ? ORDER BY hour, door`,
	ZeroResultQueries: `SELECT query, SUM(empty) AS n, MAX(last_seen) FROM insight_queries WHERE hour >= ?
			GROUP BY query HAVING SUM(empty) > 0 ORDER BY n DESC, query LIMIT ?`,
	TopQueries: `SELECT query, SUM(count) AS n, MAX(last_seen) FROM insight_queries WHERE hour >= ?
			GROUP BY query ORDER BY n DESC, query LIMIT ?`,
	Keys: `SELECT key, SUM(requests) AS n, SUM(limited) FROM insight_keys WHERE hour >= ?
			GROUP BY key ORDER BY n DESC, key LIMIT ?`,
}

// ReadInsights implements mcpdir.InsightStore.
func (s *DB) ReadInsights(ctx context.Context, since time.Time, limit int) (mcpdir.Insights, error) {
	return sqlstore.ReadInsights(ctx, s.Driver, insightQueries, since, limit)
}

// PruneInsights implements mcpdir.InsightStore.
func (s *DB) PruneInsights(ctx context.Context, before time.Time) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("prune insights: %w", err)
	}
	defer tx.Rollback()
	for _, t := range []string{"insight_doors", "insight_queries", "insight_keys"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE hour < ?`, before.UnixNano()); err != nil {
			return fmt.Errorf("prune insights: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("prune insights: %w", err)
	}
	return nil
}
