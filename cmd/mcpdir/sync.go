package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
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
	verifying := fs.String("verifying-registries", env.or("MCPDIR_VERIFYING_REGISTRIES", mcpdir.OfficialRegistry), "comma-separated base URLs of the registries that verify namespaces and package ownership (env MCPDIR_VERIFYING_REGISTRIES; docs/trust.md)")
	maxServers := fs.Int("max-servers", registry.DefaultMaxServers, "stop after this many server versions")
	maxPages := fs.Int("max-pages", registry.DefaultMaxPages, "stop after this many pages")
	maxBytes := fs.Int64("max-bytes", registry.DefaultMaxBytes, "stop after reading this many bytes of pages")
	maxTime := fs.Duration("max-time", registry.DefaultMaxTime, "stop after this long")
	proxy := fs.Bool("proxy-from-env", envTrue(env("MCPDIR_SYNC_PROXY_FROM_ENV")), "fetch through the proxy HTTPS_PROXY/HTTP_PROXY name (env MCPDIR_SYNC_PROXY_FROM_ENV=1)")
	args, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(args) > 0 || *from == "" {
		return usageError{"usage: mcpdir sync --from URL"}
	}
	trust, err := parseTrust(*verifying)
	if err != nil {
		return usageError{"--verifying-registries: " + err.Error()}
	}
	if *maxServers < 1 || *maxPages < 1 || *maxBytes < 1 || *maxTime <= 0 {
		return usageError{"--max-servers, --max-pages, --max-bytes and --max-time must be positive"}
	}
	store, err := storeAt.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	terminal := isTerminal(stderr)
	s := &registry.Syncer{Base: *from, Client: registry.HTTPClient(*private, *proxy), Store: store, Log: slog.New(slog.NewTextHandler(stderr, nil)),
		Trust: trust, MaxServers: *maxServers, MaxPages: *maxPages, MaxBytes: *maxBytes, MaxTime: *maxTime,
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
	if be, ok := errors.AsType[*registry.BoundError](err); ok {
		fmt.Fprintln(stdout, be.Error())
	}
	return err
}

// parseTrust reads --verifying-registries: base URLs, comma-separated.
func parseTrust(list string) (mcpdir.Trust, error) {
	var urls []string
	for _, u := range strings.Split(list, ",") {
		if u = strings.TrimSpace(u); u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return mcpdir.Trust{VerifyingRegistries: []string{}}, nil // none verifies
	}
	return mcpdir.NewTrust(urls)
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
