package service

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
	mcpdirhttp "github.com/mcpdir/mcpdir/http"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/metrics"
	"github.com/mcpdir/mcpdir/redis"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/toolscan"
	"github.com/mcpdir/mcpdir/toolsearch"
)

// The listings serve --listing chooses between.
const (
	ListingAll      = "all"      // every entry
	ListingApproved = "approved" // only the entries an admin approved
)

// BuildDirectory is the directory's search index over the store: one
// entry per server, the records of one server (a registry's, its npm
// package's, …) merged (package merge), with results kept for
// searchCache searches; and the index of their tools (package
// toolsearch), every entry's tools scanned for poisoning on the way in
// (package toolscan). trust says whose records' claims are verified
// (docs/trust.md); approvedOnly serves only the entries an admin approved.
func BuildDirectory(ctx context.Context, store mcpdir.Store, searchCache int, trust mcpdir.Trust, approvedOnly bool) (*merge.Index, *search.Index, *toolsearch.Index, error) {
	rules := merge.Rules{Trust: orDefault(trust)}
	var err error
	if rules.Splits, rules.Joins, err = loadAdminRules(ctx, store); err != nil {
		return nil, nil, nil, err
	}
	inner := search.New()
	inner.SetResultCache(searchCache)
	tools := toolsearch.New(inner)
	tools.SetResultCache(searchCache)
	index := merge.NewIndex(toolscan.NewIndex(tools), rules)
	if approvedOnly {
		approved, err := loadApproved(ctx, store)
		if err != nil {
			return nil, nil, nil, err
		}
		index.SetListing(approved)
	}
	// The entries go in as they are read, a batch at a time: what indexing
	// a batch makes on the way (each entry's words, the groups it joins) is
	// garbage before the next, rather than all of it at once at the peak.
	batch := make([]*mcpdir.Entry, 0, buildBatch)
	err = store.AllEntries(ctx, func(e *mcpdir.Entry) error {
		if batch = append(batch, e); len(batch) == buildBatch {
			index.Upsert(batch...)
			batch = batch[:0]
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("build index: %w", err)
	}
	index.Upsert(batch...)
	return index, inner, tools, nil
}

// buildBatch is how many entries BuildDirectory indexes at a time.
const buildBatch = 8192

// orDefault is trust, or mcpdir.DefaultTrust if it is the zero Trust.
func orDefault(trust mcpdir.Trust) mcpdir.Trust {
	if trust.VerifyingRegistries == nil {
		return mcpdir.DefaultTrust()
	}
	return trust
}

// loadApproved reads the record ids an admin approved.
func loadApproved(ctx context.Context, store mcpdir.StateStore) (map[string]bool, error) {
	raw, err := store.State(ctx, merge.ApprovedKey)
	if err != nil {
		return nil, err
	}
	approved := map[string]bool{}
	if raw == "" {
		return approved, nil
	}
	var ids []string
	if err := json.Unmarshal([]byte(raw), &ids); err != nil {
		return nil, fmt.Errorf("read the approved entries: %w", err)
	}
	for _, id := range ids {
		approved[id] = true
	}
	return approved, nil
}

// loadAdminRules reads the pairs of records an admin declared distinct,
// and those an admin declared one server.
func loadAdminRules(ctx context.Context, store mcpdir.StateStore) (splits, joins merge.Splits, err error) {
	if splits, err = loadPairs(ctx, store, merge.SplitsKey); err != nil {
		return nil, nil, err
	}
	joins, err = loadPairs(ctx, store, merge.JoinsKey)
	return splits, joins, err
}

func loadPairs(ctx context.Context, store mcpdir.StateStore, key string) (merge.Splits, error) {
	s := merge.Splits{}
	raw, err := store.State(ctx, key)
	if err != nil || raw == "" {
		return s, err
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return nil, fmt.Errorf("read the merge's %s: %w", key, err)
	}
	return s, nil
}

// answerCacheBytes bounds the encoded answers each interface keeps beside
// the index's results (about 1,300 search_mcp answers of 50 hits), or none
// when no results are kept.
func answerCacheBytes(searchCache int) int {
	if searchCache == 0 {
		return 0
	}
	return 32 << 20
}

// registryOf is the registry API over the index and the versions history
// (its write side keeps versions in the store, and brings their entries
// into this replica's index before it answers: a client reads its writes),
// or none when it is off.
//
// A publisher here changes only what it published (docs/trust.md): a
// server whose name a verified source holds, or whose entry another source
// owns, is refused (registry.OwnedError).
func registryOf(access string, index *merge.Index, trust mcpdir.Trust, store mcpdir.Store, written *indexWrites, logger *slog.Logger) *registryapi.API {
	if access == "off" {
		return nil
	}
	return &registryapi.API{
		Dir: index, History: store, MaxAge: time.Minute, Log: logger,
		Audit: func(ctx context.Context, r mcpdir.AuditRecord) {
			if err := store.AppendAudit(ctx, r); err != nil {
				logger.ErrorContext(ctx, "audit: a publisher's write was not recorded", "action", r.Action, "target", r.Target, "err", err)
			}
		},
		Keep: func(ctx context.Context, vs []*mcpdir.ServerVersion) error {
			for _, v := range vs {
				for _, h := range index.Holders(v.Name) {
					if h.ID != v.EntryID() && trust.Verified(h) {
						return &registry.OwnedError{Name: v.Name, Owner: mcpdir.SourceLabel(h.Source, h.Origin)}
					}
				}
			}
			k, err := registry.Keep(ctx, store, vs)
			if err != nil {
				return err
			}
			for name, owner := range k.Refused {
				return &registry.OwnedError{Name: name, Owner: owner}
			}
			return written.versionsWritten(ctx, store, vs)
		},
	}
}

// metricsOnMain is what the main listener serves at /metrics: nothing when
// they have a listener of their own.
func metricsOnMain(metricsAddr string, m *metrics.Metrics) http.Handler {
	if metricsAddr != "" {
		return nil
	}
	return m.Handler()
}

// readiness is what /readyz reports: not ready while stopping, and each
// dependency's state (while starting, http.Starting answers).
func readiness(ready *atomic.Bool, storeUp *atomic.Bool, redisLimits *redis.Limiter) func(context.Context) mcpdirhttp.Readiness {
	return func(context.Context) mcpdirhttp.Readiness {
		r := mcpdirhttp.Readiness{Ready: ready.Load(), Checks: map[string]string{"index": "ok", "database": "ok"}}
		if !storeUp.Load() {
			r.Checks["database"] = "down: searches are served from memory, keys already known work, writes fail"
		}
		if redisLimits != nil {
			r.Checks["redis"] = "ok"
			if redisLimits.Status() != nil {
				r.Checks["redis"] = "down: rate limits are counted per replica"
			}
		}
		return r
	}
}

// watchStore is a round of the database watch: it pings the store and
// notes whether it answers, logging when it stops and when it is back
// (the pool reconnects by itself).
func watchStore(store interface{ Ping(context.Context) error }, up *atomic.Bool, logger *slog.Logger) func(context.Context) {
	return func(ctx context.Context) {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := store.Ping(pctx)
		cancel()
		switch {
		case err != nil && up.Load() && ctx.Err() == nil:
			logger.Warn("database unreachable: serving searches from memory; writes fail until it is back", "err", err)
			up.Store(false)
		case err == nil && !up.Load():
			logger.Info("database is back")
			up.Store(true)
		}
	}
}

// windowStore keeps rate windows across restarts (the embedded store).
type windowStore interface {
	SaveRateWindows(ctx context.Context, limiter string, logs map[string][]time.Time) error
	RateWindows(ctx context.Context, limiter string) (map[string][]time.Time, error)
}

func restoreWindows(ctx context.Context, store windowStore, limiters map[string]*memory.Limiter) error {
	for name, l := range limiters {
		logs, err := store.RateWindows(ctx, name)
		if err != nil {
			return err
		}
		l.Restore(logs)
	}
	return nil
}

// saveWindows is a round of the rate windows job: it writes the windows
// that changed since the last round (and, as the job's Stop, once more
// after the last request was answered). Windows it could not write are
// written by the next round: a round cut short by the shutdown leaves
// them to the Stop's.
func saveWindows(store windowStore, limiters map[string]*memory.Limiter, logger *slog.Logger) func(context.Context) {
	return func(ctx context.Context) {
		for name, l := range limiters {
			if changed := l.TakeChanged(); len(changed) > 0 {
				if err := store.SaveRateWindows(ctx, name, changed); err != nil {
					l.Unsaved(changed)
					logger.Warn("cannot keep the rate windows yet; the next round tries again", "err", err)
				}
			}
		}
	}
}
