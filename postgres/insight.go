package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlstore"
)

// AddInsights implements mcpdir.InsightStore: every count is added to the
// stored one, in one transaction, so that replicas adding at once lose
// nothing (each row is locked in the order of its key: no deadlock).
func (db *DB) AddInsights(ctx context.Context, b mcpdir.InsightBatch) error {
	b = b.Merged()
	if b.Empty() {
		return nil
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if n := len(b.Buckets); n > 0 {
			hours, doors := make([]int64, n), make([]string, n)
			searches, empty, limited, refused := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
			for i, x := range b.Buckets {
				hours[i], doors[i] = x.Hour.UnixNano(), x.Door
				searches[i], empty[i], limited[i], refused[i] = x.Searches, x.Empty, x.Limited, x.Refused
			}
			if _, err := tx.Exec(ctx, `INSERT INTO insight_doors AS t (hour, door, searches, empty, limited, refused)
				SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
				ON CONFLICT (hour, door) DO UPDATE SET searches = t.searches + excluded.searches, empty = t.empty + excluded.empty,
				limited = t.limited + excluded.limited, refused = t.refused + excluded.refused`,
				hours, doors, searches, empty, limited, refused); err != nil {
				return err
			}
		}
		if n := len(b.Queries); n > 0 {
			hours, queries := make([]int64, n), make([]string, n)
			counts, empty, last := make([]int64, n), make([]int64, n), make([]int64, n)
			for i, x := range b.Queries {
				hours[i], queries[i], counts[i], empty[i], last[i] = x.Hour.UnixNano(), x.Query, x.Count, x.Empty, sqlstore.UnixNano(x.LastSeen)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO insight_queries AS t (hour, query, count, empty, last_seen)
				SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[])
				ON CONFLICT (hour, query) DO UPDATE SET count = t.count + excluded.count, empty = t.empty + excluded.empty,
				last_seen = GREATEST(t.last_seen, excluded.last_seen)`,
				hours, queries, counts, empty, last); err != nil {
				return err
			}
		}
		if n := len(b.Keys); n > 0 {
			hours, keys, requests, limited := make([]int64, n), make([]string, n), make([]int64, n), make([]int64, n)
			for i, x := range b.Keys {
				hours[i], keys[i], requests[i], limited[i] = x.Hour.UnixNano(), x.Key, x.Requests, x.Limited
			}
			if _, err := tx.Exec(ctx, `INSERT INTO insight_keys AS t (hour, key, requests, limited)
				SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
				ON CONFLICT (hour, key) DO UPDATE SET requests = t.requests + excluded.requests, limited = t.limited + excluded.limited`,
				hours, keys, requests, limited); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add insights: %w", err)
	}
	return nil
}

// insightQueries are what ReadInsights reads.
var insightQueries = sqlstore.InsightQueries{
	Doors: `SELECT hour, door, searches, empty, limited, refused FROM insight_doors WHERE hour >= $1 ORDER BY hour, door`,
	ZeroResultQueries: `SELECT query, SUM(empty)::bigint AS n, MAX(last_seen) FROM insight_queries WHERE hour >= $1
			GROUP BY query HAVING SUM(empty) > 0 ORDER BY n DESC, query COLLATE "C" LIMIT $2`,
	TopQueries: `SELECT query, SUM(count)::bigint AS n, MAX(last_seen) FROM insight_queries WHERE hour >= $1
			GROUP BY query ORDER BY n DESC, query COLLATE "C" LIMIT $2`,
	Keys: `SELECT key, SUM(requests)::bigint AS n, SUM(limited)::bigint FROM insight_keys WHERE hour >= $1
			GROUP BY key ORDER BY n DESC, key COLLATE "C" LIMIT $2`,
}

// ReadInsights implements mcpdir.InsightStore.
func (db *DB) ReadInsights(ctx context.Context, since time.Time, limit int) (mcpdir.Insights, error) {
	return sqlstore.ReadInsights(ctx, db.Driver, insightQueries, since, limit)
}

// PruneInsights implements mcpdir.InsightStore.
func (db *DB) PruneInsights(ctx context.Context, before time.Time) error {
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		for _, t := range []string{"insight_doors", "insight_queries", "insight_keys"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+t+` WHERE hour < $1`, before.UnixNano()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("prune insights: %w", err)
	}
	return nil
}
