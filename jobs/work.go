package jobs

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/registry"
)

// RegistrySync follows a registry's list API (serve --sync-from) through
// client: at start and then every interval, on one replica at a time; ran
// reports each round's outcome (a metric).
func RegistrySync(store mcpdir.Store, from string, client *http.Client, trust mcpdir.Trust, every time.Duration, logger *slog.Logger, ran func(ok bool)) Job {
	s := &registry.Syncer{Base: from, Client: client, Store: store, Log: logger, Trust: trust}
	return Job{Name: "registry sync", Every: every, Lock: SyncLock, Run: func(ctx context.Context) {
		start := time.Now()
		sum, err := s.Sync(ctx)
		ran(err == nil)
		if err != nil {
			logger.Warn("registry sync failed; what was committed stays", "from", from, "err", err)
			return
		}
		logger.Info("registry sync", "from", from, "added", sum.Added, "updated", sum.Updated, "hidden", sum.Hidden,
			"kept", sum.Kept, "took", time.Since(start).Round(time.Millisecond))
	}}
}

// LiveChecks checks, at start and then every interval, the entries whose
// latest check is older than the interval; on a shared store one replica
// at a time (the others find nothing due afterwards).
func LiveChecks(store mcpdir.Store, c *livecheck.Checker, every time.Duration, logger *slog.Logger) Job {
	return Job{Name: "live checks", Every: every, Lock: CheckLock, Run: func(ctx context.Context) {
		start := time.Now()
		// A tenth of slack: replicas' clocks differ, and a round takes time.
		targets, err := livecheck.Targets(ctx, store, every-every/10, start)
		if err != nil {
			logger.Warn("live checks: cannot read the entries; trying again later", "err", err)
			return
		}
		if len(targets) == 0 {
			return
		}
		sum := c.Run(ctx, store, targets, logger, func(t livecheck.Target, r livecheck.Result) {
			logger.Debug("live check", "entry", t.ID, "url", t.Remote.URL, "status", r.Status, "ms", r.Latency.Milliseconds(), "reason", r.Reason)
		})
		logger.Info("live checks", "checked", sum[mcpdir.LiveUp]+sum[mcpdir.LiveAuthRequired]+sum[mcpdir.LiveDown],
			"up", sum[mcpdir.LiveUp], "auth_required", sum[mcpdir.LiveAuthRequired], "down", sum[mcpdir.LiveDown],
			"took", time.Since(start).Round(time.Millisecond))
	}}
}

// OAuth is what the OAuth jobs need of the authorization server.
type OAuth interface {
	// Flush writes when grants were last used (kept in memory between).
	Flush(ctx context.Context)
	// Sweep deletes what expired from the store.
	Sweep(ctx context.Context)
	// ForgetRevocations drops old revocations the replica remembers.
	ForgetRevocations(ctx context.Context)
}

// OAuthFlush writes the grants' last use every interval on every replica
// (each holds its own), and once more when the service stops.
func OAuthFlush(o OAuth, every time.Duration) Job {
	return Job{Name: "oauth flush", Every: every, Run: o.Flush, Stop: o.Flush}
}

// OAuthSweep deletes expired codes, tokens and unused clients at start and
// then every interval, on one replica at a time.
func OAuthSweep(o OAuth, every time.Duration) Job {
	return Job{Name: "oauth sweep", Every: every, Lock: OAuthSweepLock, Run: o.Sweep}
}

// OAuthForget drops a replica's old revocations every interval, on every
// replica.
func OAuthForget(o OAuth, every time.Duration) Job {
	return Job{Name: "oauth forget", Every: every, Run: o.ForgetRevocations}
}

// Loop is a job that runs until its context ends, on every replica.
func Loop(name string, run func(ctx context.Context)) Job {
	return Job{Name: name, Run: run}
}

// Every is a job of a replica's own housekeeping, on every replica.
func Every(name string, every time.Duration, run func(ctx context.Context)) Job {
	return Job{Name: name, Every: every, Run: run}
}

// ChangesKept is how long the change feed keeps a change: far longer than
// any running replica lags (one that starts reads the whole store).
const ChangesKept = 7 * 24 * time.Hour

// PruneChanges deletes the changes older than ChangesKept, every interval
// on one replica, so that the feed does not grow for ever (a refresh
// writes a change, an import one per entry).
func PruneChanges(feed mcpdir.ChangeFeed, every time.Duration, logger *slog.Logger) Job {
	return Job{Name: "change feed prune", Every: every, Lock: ChangePruneLock, Run: func(ctx context.Context) {
		n, err := feed.PruneChanges(ctx, time.Now().Add(-ChangesKept))
		if err != nil {
			logger.Warn("change feed prune failed; trying again later", "err", err)
			return
		}
		if n > 0 {
			logger.Info("change feed pruned", "changes", n)
		}
	}}
}

// Flusher is what the insight's flush job needs (insight.Recorder).
type Flusher interface{ Flush(ctx context.Context) }

// InsightFlush adds a replica's insight counts to the store every
// interval, and once more when the service stops.
func InsightFlush(f Flusher, every time.Duration) Job {
	return Job{Name: "insight flush", Every: every, Run: f.Flush, Stop: f.Flush}
}

// PruneInsights drops the insight's hours older than days, every interval
// on one replica.
func PruneInsights(store mcpdir.InsightStore, days int, every time.Duration, logger *slog.Logger) Job {
	return Job{Name: "insight prune", Every: every, Lock: InsightPruneLock, Run: func(ctx context.Context) {
		if err := store.PruneInsights(ctx, time.Now().Add(-time.Duration(days)*24*time.Hour)); err != nil {
			logger.Warn("insight prune failed; trying again later", "err", err)
		}
	}}
}
