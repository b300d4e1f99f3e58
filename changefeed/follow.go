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

// KeyRefresher re-reads keys that changed elsewhere (auth.Service).
type KeyRefresher interface {
	Refresh(ctx context.Context, prefixes []string) error
}

// Applier returns the Apply that brings a server's index and key cache up
// to date with writes made elsewhere: changed entries are re-read and
// re-indexed (or dropped when gone), changed keys re-read.
func Applier(store mcpdir.EntryStore, index mcpdir.SearchIndex, keys KeyRefresher) Apply {
	return func(ctx context.Context, changes []mcpdir.Change) error {
		var entryIDs, keyPrefixes []string
		seen := map[mcpdir.Change]bool{}
		for _, c := range changes {
			c.Seq = 0
			if seen[c] {
				continue
			}
			seen[c] = true
			switch c.Kind {
			case mcpdir.ChangeEntry:
				entryIDs = append(entryIDs, c.Ref)
			case mcpdir.ChangeKey:
				keyPrefixes = append(keyPrefixes, c.Ref)
			}
		}
		if len(entryIDs) > 0 {
			entries, err := store.EntriesByID(ctx, entryIDs)
			if err != nil {
				return err
			}
			index.Upsert(entries...)
			found := make(map[string]bool, len(entries))
			for _, e := range entries {
				found[e.ID] = true
			}
			var gone []string
			for _, id := range entryIDs {
				if !found[id] {
					gone = append(gone, id)
				}
			}
			index.Remove(gone...)
		}
		return keys.Refresh(ctx, keyPrefixes)
	}
}
