package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
)

// syncCmd pulls the official registry (or one that speaks its list API)
// into the directory.
func syncCmd(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("sync", env, stderr)
	from := fs.String("from", env("MCPDIR_SYNC_FROM"), "the registry's base URL, e.g. https://registry.modelcontextprotocol.io (env MCPDIR_SYNC_FROM)")
	private := fs.Bool("allow-private", envTrue(env("MCPDIR_SYNC_ALLOW_PRIVATE")), "let the sync reach loopback, private and other non-public addresses (env MCPDIR_SYNC_ALLOW_PRIVATE=1)")
	proxy := fs.Bool("proxy-from-env", envTrue(env("MCPDIR_SYNC_PROXY_FROM_ENV")), "fetch through the proxy HTTPS_PROXY/HTTP_PROXY name (env MCPDIR_SYNC_PROXY_FROM_ENV=1)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 || *from == "" {
		return usageError{"usage: mcpdir sync --from URL"}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	terminal := isTerminal(stderr)
	s := &registry.Syncer{Base: *from, Client: registry.HTTPClient(*private, *proxy), Store: store, Log: slog.New(slog.NewTextHandler(stderr, nil)),
		Progress: func(sum registry.Summary) {
			if terminal {
				fmt.Fprintf(stderr, "\r\033[Ksync %s: page %d, %d added, %d updated", terminalSafe(*from), sum.Pages, sum.Added, sum.Updated)
			} else {
				fmt.Fprintf(stderr, "sync %s: page %d committed\n", terminalSafe(*from), sum.Pages)
			}
		}}
	sum, err := s.Sync(ctx)
	if terminal {
		fmt.Fprint(stderr, "\r\033[K")
	}
	printSync(stdout, *from, sum, time.Since(start))
	return err
}

func printSync(w io.Writer, from string, sum registry.Summary, took time.Duration) {
	fmt.Fprintf(w, "synced %s in %s: %d versions recorded; entries: %d added, %d updated, %d unchanged, %d hidden (deleted in the registry), %d kept as an admin edited them\n",
		terminalSafe(from), took.Round(time.Millisecond), sum.Versions, sum.Added, sum.Updated, sum.Unchanged, sum.Hidden, sum.Kept)
	for _, r := range slices.Sorted(maps.Keys(sum.Skipped)) {
		fmt.Fprintf(w, "  skipped %d: %s\n", sum.Skipped[r], r)
	}
}

// syncLocker is a store that can make sure one replica syncs at a time
// (PostgreSQL's advisory lock).
type syncLocker interface {
	TryLock(ctx context.Context, key int64) (unlock func(), ok bool, err error)
}

const syncLock = 0x6d63706469720003

// runSync syncs at start and then every interval until ctx ends; on a
// shared store, one replica at a time.
func runSync(ctx context.Context, store mcpdir.Store, from string, client *http.Client, every time.Duration, logger *slog.Logger, ran func(ok bool)) {
	s := &registry.Syncer{Base: from, Client: client, Store: store, Log: logger}
	onOneReplica(ctx, store, syncLock, every, logger, "registry sync", func() {
		start := time.Now()
		sum, err := s.Sync(ctx)
		ran(err == nil)
		if err != nil {
			logger.Warn("registry sync failed; what was committed stays", "from", from, "err", err)
		} else {
			logger.Info("registry sync", "from", from, "added", sum.Added, "updated", sum.Updated, "hidden", sum.Hidden,
				"kept", sum.Kept, "took", time.Since(start).Round(time.Millisecond))
		}
	})
}

// onOneReplica runs job at start and then every interval until ctx ends;
// on a shared store, under the lock key, so that one replica at a time
// runs it (a replica that finds the lock taken skips its turn).
func onOneReplica(ctx context.Context, store mcpdir.Store, key int64, every time.Duration, logger *slog.Logger, what string, job func()) {
	for {
		unlock, ok := func() {}, true
		if l, shared := store.(syncLocker); shared {
			var err error
			if unlock, ok, err = l.TryLock(ctx, key); err != nil {
				logger.Warn(what+": cannot take the lock", "err", err)
				ok = false
			}
		}
		if ok {
			job()
			unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// envTrue reads a boolean setting from the environment: 1 or true.
func envTrue(v string) bool { return v == "1" || strings.EqualFold(v, "true") }
