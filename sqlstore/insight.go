package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpdir/mcpdir"
)

// InsightQueries are a store's SQL for what ReadInsights reads, in its
// dialect. Each takes the first hour (Unix nanoseconds); the lists take
// their limit after it.
type InsightQueries struct {
	// Doors reads hour, door, searches, empty, limited, refused.
	Doors string
	// ZeroResultQueries and TopQueries read query, count, last seen.
	ZeroResultQueries, TopQueries string
	// Keys reads key, requests, limited.
	Keys string
}

// each passes fn every row that q answers.
func each(ctx context.Context, d Driver, q string, args []any, fn func(Row) error) error {
	return d.Query(ctx, q, args, func(rows Rows) error {
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// ReadInsights reads the hours since a time (to the hour) in q:
// searches by hour and door, the queries most asked and those that found
// nothing, and the keys most used, at most limit (at least 1) of each.
func ReadInsights(ctx context.Context, d Driver, q InsightQueries, since time.Time, limit int) (mcpdir.Insights, error) {
	out := mcpdir.Insights{Searches: []mcpdir.InsightBucket{}, ZeroResultQueries: []mcpdir.QueryStat{}, TopQueries: []mcpdir.QueryStat{}, Keys: []mcpdir.KeyStat{}}
	from := since.UTC().Truncate(time.Hour).UnixNano()
	limit = max(limit, 1)
	err := each(ctx, d, q.Doors, []any{from}, func(row Row) error {
		var x mcpdir.InsightBucket
		var h int64
		if err := row.Scan(&h, &x.Door, &x.Searches, &x.Empty, &x.Limited, &x.Refused); err != nil {
			return err
		}
		x.Hour = time.Unix(0, h).UTC()
		out.Searches = append(out.Searches, x)
		return nil
	})
	queries := func(sql string, into *[]mcpdir.QueryStat) error {
		return each(ctx, d, sql, []any{from, limit}, func(row Row) error {
			var x mcpdir.QueryStat
			var last int64
			if err := row.Scan(&x.Query, &x.Count, &last); err != nil {
				return err
			}
			x.LastSeen = FromUnixNano(last)
			*into = append(*into, x)
			return nil
		})
	}
	if err == nil {
		err = queries(q.ZeroResultQueries, &out.ZeroResultQueries)
	}
	if err == nil {
		err = queries(q.TopQueries, &out.TopQueries)
	}
	if err == nil {
		err = each(ctx, d, q.Keys, []any{from, limit}, func(row Row) error {
			var x mcpdir.KeyStat
			if err := row.Scan(&x.Key, &x.Requests, &x.Limited); err != nil {
				return err
			}
			out.Keys = append(out.Keys, x)
			return nil
		})
	}
	if err != nil {
		return mcpdir.Insights{}, fmt.Errorf("read insights: %w", err)
	}
	return out, nil
}
