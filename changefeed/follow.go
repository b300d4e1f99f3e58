// Package changefeed follows a store's change feed, so that a server sees
// writes made by other processes: the CLI on the same data directory, or
// other replicas on the same database.
package changefeed

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpdir/mcpdir"
)

// BatchSize bounds how many changes are read and applied at once.
const BatchSize = 1000

// Apply handles one batch of changes, oldest first.
type Apply func(ctx context.Context, changes []mcpdir.Change) error

// Follow polls feed every interval for changes after seq and hands them to
// apply, until ctx ends. A batch that fails to read or apply is retried at
// the next tick, so nothing is skipped; a failure is logged when it starts
// and when it ends, not at every tick. It returns the last applied
// sequence number. caughtUp, if not nil, is told each time the feed was
// read to its end.
func Follow(ctx context.Context, feed mcpdir.ChangeFeed, after int64, interval time.Duration, apply Apply, logger *slog.Logger, caughtUp func(time.Time)) int64 {
	t := time.NewTicker(interval)
	defer t.Stop()
	var wake <-chan struct{}
	if n, ok := feed.(Notifier); ok {
		wake = n.Notifications(ctx)
	}
	failing := false
	for {
		var err error
		after, err = catchUp(ctx, feed, after, apply)
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			logger.Warn("change feed: cannot follow writes made elsewhere; retrying", "after", after, "err", err)
			failing = true
		case err == nil && failing:
			logger.Info("change feed: following writes again", "after", after)
			failing = false
		}
		if err == nil && caughtUp != nil {
			caughtUp(time.Now())
		}
		select {
		case <-ctx.Done():
			return after
		case <-t.C:
		case <-wake:
		}
	}
}

// Notifier is a feed that can say when a change was written (PostgreSQL's
// LISTEN/NOTIFY), so that a follower need not wait for its next poll. The
// poll stays: a notification can be lost, a read cannot.
type Notifier interface {
	Notifications(ctx context.Context) <-chan struct{}
}

func catchUp(ctx context.Context, feed mcpdir.ChangeFeed, after int64, apply Apply) (int64, error) {
	for ctx.Err() == nil {
		changes, err := feed.ChangesSince(ctx, after, BatchSize)
		if err != nil {
			return after, fmt.Errorf("read: %w", err)
		}
		if len(changes) == 0 {
			return after, nil
		}
		if err := apply(ctx, changes); err != nil {
			return after, fmt.Errorf("apply %d changes: %w", len(changes), err)
		}
		after = changes[len(changes)-1].Seq
		if len(changes) < BatchSize {
			return after, nil
		}
	}
	return after, nil
}

// KeyRefresher re-reads keys that changed elsewhere (auth.Service).
type KeyRefresher interface {
	Refresh(ctx context.Context, prefixes []string) error
}

// GrantForgetter drops OAuth grants revoked elsewhere, and the earlier
// access tokens of grants refreshed elsewhere (oauth.Server).
type GrantForgetter interface {
	Forget(ctx context.Context, grantIDs []string) error
	Renewed(ctx context.Context, grantIDs []string) error
}

// Followers are told of the changes besides entries'.
type Followers struct {
	Keys KeyRefresher
	// Grants, if set, forgets revoked OAuth grants.
	Grants GrantForgetter
	// Versions, if set, is told that servers' versions changed
	// (registryapi.API.VersionsChanged).
	Versions func()
	// State, if set, is told which state keys changed.
	State func(ctx context.Context, keys []string) error
}

// Applier returns the Apply that brings a server's index and key cache up
// to date with writes made elsewhere: changed entries are re-read and
// re-indexed (or dropped when gone), changed keys re-read, revoked grants
// forgotten, changed versions and state told.
func Applier(store mcpdir.EntryStore, index mcpdir.SearchIndex, f Followers) Apply {
	return func(ctx context.Context, changes []mcpdir.Change) error {
		var entryIDs, keyPrefixes, grantIDs, renewedIDs, stateKeys []string
		versionsChanged := false
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
			case mcpdir.ChangeGrant:
				grantIDs = append(grantIDs, c.Ref)
			case mcpdir.ChangeGrantTokens:
				renewedIDs = append(renewedIDs, c.Ref)
			case mcpdir.ChangeVersion:
				versionsChanged = true
			case mcpdir.ChangeState:
				stateKeys = append(stateKeys, c.Ref)
			}
		}
		if len(entryIDs) > 0 {
			if err := Reindex(ctx, store, index, entryIDs); err != nil {
				return err
			}
		}
		if versionsChanged && f.Versions != nil {
			f.Versions()
		}
		if len(stateKeys) > 0 && f.State != nil {
			if err := f.State(ctx, stateKeys); err != nil {
				return err
			}
		}
		if f.Grants != nil {
			if err := f.Grants.Forget(ctx, grantIDs); err != nil {
				return err
			}
			if err := f.Grants.Renewed(ctx, renewedIDs); err != nil {
				return err
			}
		}
		return f.Keys.Refresh(ctx, keyPrefixes)
	}
}

// Reindex re-reads entries by id: those found are indexed, the others
// dropped from index.
func Reindex(ctx context.Context, store mcpdir.EntryStore, index mcpdir.SearchIndex, ids []string) error {
	entries, err := store.EntriesByID(ctx, ids)
	if err != nil {
		return err
	}
	index.Upsert(entries...)
	found := make(map[string]bool, len(entries))
	for _, e := range entries {
		found[e.ID] = true
	}
	var gone []string
	for _, id := range ids {
		if !found[id] {
			gone = append(gone, id)
		}
	}
	index.Remove(gone...)
	return nil
}
