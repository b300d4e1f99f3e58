package service

import (
	"context"
	"sync"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/changefeed"
)

// indexWrites brings entries from the store into this replica's index, one
// caller at a time: the change feed's batches (writes made elsewhere) and
// the registry API's own writes (read your writes: a write is in the index
// of the replica that answered it before the answer goes out). One at a
// time, so that an entry read before a write never lands in the index
// after the write's own read.
type indexWrites struct {
	mu    sync.Mutex
	store mcpdir.EntryStore
	index mcpdir.SearchIndex
}

// follow wraps the change feed's Apply.
func (x *indexWrites) follow(next changefeed.Apply) changefeed.Apply {
	return func(ctx context.Context, changes []mcpdir.Change) error {
		x.mu.Lock()
		defer x.mu.Unlock()
		return next(ctx, changes)
	}
}

// refresh re-reads entries by id: those found are indexed, the others
// dropped.
func (x *indexWrites) refresh(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return changefeed.Reindex(ctx, x.store, x.index, ids)
}

// versionsWritten brings the entries of the servers versions were written
// for into the index: each server's entry (its latest version's), or none
// when every version is deleted.
func (x *indexWrites) versionsWritten(ctx context.Context, store mcpdir.VersionStore, vs []*mcpdir.ServerVersion) error {
	all, err := store.ServerVersions(ctx, mcpdir.VersionNames(vs))
	if err != nil {
		return err
	}
	var ids []string
	seenID := map[string]bool{}
	for _, v := range append(all, vs...) {
		if id := v.EntryID(); v.EntryKey != "" && !seenID[id] {
			seenID[id] = true
			ids = append(ids, id)
		}
	}
	return x.refresh(ctx, ids)
}
