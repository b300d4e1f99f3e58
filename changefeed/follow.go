// Package changefeed follows a store's change feed, so that a server sees
// writes made by other processes: the CLI on the same data directory, or
// other replicas on the same database.
package changefeed

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpdir/mcpdir"
)

// BatchSize bounds how many changes are read and applied at once.
const BatchSize = 1000

// Apply handles one batch of changes, oldest first.
type Apply func(ctx context.Context, changes []mcpdir.Change) error

// Follow polls feed every interval for changes after seq and hands them to
// apply, until ctx ends. A batch that fails to apply is retried at the next
// tick, so nothing is skipped. It returns the last applied sequence number.
func Follow(ctx context.Context, feed mcpdir.ChangeFeed, after int64, interval time.Duration, apply Apply, logger *slog.Logger) int64 {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		after = catchUp(ctx, feed, after, apply, logger)
		select {
		case <-ctx.Done():
			return after
		case <-t.C:
		}
	}
}

func catchUp(ctx context.Context, feed mcpdir.ChangeFeed, after int64, apply Apply, logger *slog.Logger) int64 {
	for ctx.Err() == nil {
		changes, err := feed.ChangesSince(ctx, after, BatchSize)
		if err != nil {
			if ctx.Err() == nil {
				logger.Warn("read change feed", "after", after, "err", err)
			}
			return after
		}
		if len(changes) == 0 {
			return after
		}
		if err := apply(ctx, changes); err != nil {
			logger.Warn("apply changes", "after", after, "count", len(changes), "err", err)
			return after
		}
		after = changes[len(changes)-1].Seq
		if len(changes) < BatchSize {
			return after
		}
	}
	return after
}
