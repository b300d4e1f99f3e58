// Package jobs runs the service's background work: each job at start and
// then every interval until the service stops. A job that must happen once
// for the whole service (a registry sync, live checks, the OAuth sweep)
// runs on one replica at a time, under a lock of a shared store (a
// PostgreSQL advisory lock); housekeeping of a replica's own memory runs on
// every replica.
package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Job is one piece of background work.
type Job struct {
	Name string
	// Every is the interval between rounds; zero: Run is called once and
	// runs until its context ends (a loop of its own, such as following
	// the change feed).
	Every time.Duration
	// Lock, when not zero, makes the job run on one replica at a time of a
	// shared store: a replica that finds the lock taken skips its turn.
	Lock int64
	// Run does one round.
	Run func(ctx context.Context)
	// Stop, when set, runs once after the last round, on a context that is
	// not cancelled (a last flush of what the replica holds).
	Stop func(ctx context.Context)
}

// Locker is a store that can make sure one replica at a time runs a job.
type Locker interface {
	TryLock(ctx context.Context, key int64) (unlock func(), ok bool, err error)
}

// The locks of the jobs that run on one replica.
const (
	SyncLock         = 0x6d63706469720003
	CheckLock        = 0x6d63706469720004
	OAuthSweepLock   = 0x6d63706469720005
	ChangePruneLock  = 0x6d63706469720006
	InsightPruneLock = 0x6d63706469720011 // 0010 is the PostgreSQL store's
)

// Start runs every job in a goroutine of its own until ctx ends; the
// function it returns waits for them all to finish (and their Stop). A
// store that is not a Locker (the embedded one, which one process
// serves) runs every job.
func Start(ctx context.Context, store any, logger *slog.Logger, jobs ...Job) (wait func()) {
	locker, _ := store.(Locker)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() { run(ctx, locker, logger, j) })
	}
	return wg.Wait
}

func run(ctx context.Context, locker Locker, logger *slog.Logger, j Job) {
	if j.Stop != nil {
		defer func() {
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			j.Stop(stop)
		}()
	}
	if j.Every <= 0 {
		j.Run(ctx)
		return
	}
	for {
		OnOneReplica(ctx, locker, j.Lock, logger, j.Name, j.Run)
		select {
		case <-ctx.Done():
			return
		case <-time.After(j.Every):
		}
	}
}

// OnOneReplica runs one round of a job: under the lock key when the store
// is shared and the key is not zero (skipped when another replica holds
// it), else at once.
func OnOneReplica(ctx context.Context, locker Locker, key int64, logger *slog.Logger, what string, round func(context.Context)) {
	if ctx.Err() != nil {
		return
	}
	if locker == nil || key == 0 {
		round(ctx)
		return
	}
	unlock, ok, err := locker.TryLock(ctx, key)
	if err != nil {
		logger.Warn(what+": cannot take the lock", "err", err)
		return
	}
	if !ok {
		return
	}
	defer unlock()
	round(ctx)
}
