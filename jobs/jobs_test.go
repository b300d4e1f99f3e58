package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/jobs"
	"github.com/mcpdir/mcpdir/postgres"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/storetest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// Three replicas on one PostgreSQL store: a job under a lock never runs on
// two at once, and each round is run by some replica; a job without a
// lock runs on every replica.
func TestALockedJobRunsOnOneReplicaAtATime(t *testing.T) {
	url := storetest.PostgresURL(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var running, most, rounds, everywhere atomic.Int32
	locked := jobs.Job{Name: "sync", Every: 20 * time.Millisecond, Lock: jobs.SyncLock, Run: func(context.Context) {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		running.Add(-1)
		rounds.Add(1)
	}}
	each := jobs.Job{Name: "flush", Every: time.Hour, Run: func(context.Context) { everywhere.Add(1) }}
	var waits []func()
	for range 3 {
		store, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		waits = append(waits, jobs.Start(ctx, store, quiet, locked, each))
	}
	time.Sleep(500 * time.Millisecond)
	cancel()
	for _, w := range waits {
		w()
	}
	if most.Load() != 1 || rounds.Load() < 3 {
		t.Errorf("at most %d replicas ran the locked job at once (want 1), in %d rounds", most.Load(), rounds.Load())
	}
	if everywhere.Load() != 3 {
		t.Errorf("the job without a lock ran %d times at start, want once per replica (3)", everywhere.Load())
	}
}

// On the embedded store (one process) every job runs; Stop runs once after
// the last round, on a live context; a Loop job runs until the end.
func TestJobsStartAndStop(t *testing.T) {
	store, err := sqlite.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	var events []string
	note := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	wait := jobs.Start(ctx, store, quiet,
		jobs.Job{Name: "locked", Every: time.Hour, Lock: jobs.CheckLock, Run: func(context.Context) { note("locked") },
			Stop: func(ctx context.Context) {
				if ctx.Err() == nil {
					note("stop")
				}
			}},
		jobs.Loop("loop", func(ctx context.Context) { note("loop"); <-ctx.Done(); note("loop ended") }),
	)
	time.Sleep(100 * time.Millisecond)
	cancel()
	wait()
	got := map[string]int{}
	for _, e := range events {
		got[e]++
	}
	if got["locked"] != 1 || got["stop"] != 1 || got["loop"] != 1 || got["loop ended"] != 1 {
		t.Errorf("events: %v", events)
	}
}
