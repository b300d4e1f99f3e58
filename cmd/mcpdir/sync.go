package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

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

// envTrue reads a boolean setting from the environment: 1 or true.
func envTrue(v string) bool { return v == "1" || strings.EqualFold(v, "true") }
