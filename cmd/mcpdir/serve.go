package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	mcpdirhttp "github.com/mcpdir/mcpdir/http"
	"github.com/mcpdir/mcpdir/logwriter"
	"github.com/mcpdir/mcpdir/memlimit"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/service"
	"github.com/mcpdir/mcpdir/sqlite"
)

// clock is the time the rate limiter counts by; tests move it.
var clock = time.Now

func serve(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("serve", env, stderr)
	var cfg service.Config
	var logLevel, logFormat, signup string
	fs.StringVar(&cfg.Addr, "addr", env.or("MCPDIR_ADDR", "127.0.0.1:8080"), "address to listen on (env MCPDIR_ADDR)")
	fs.BoolVar(&cfg.NoStarter, "no-starter", env("MCPDIR_NO_STARTER") == "1" || env("MCPDIR_NO_STARTER") == "true", "do not load the starter directory into an empty store (env MCPDIR_NO_STARTER=1)")
	maxResults, err := strconv.Atoi(env.or("MCPDIR_MAX_RESULTS", "50"))
	if err != nil {
		return usageError{"MCPDIR_MAX_RESULTS must be a number"}
	}
	fs.IntVar(&cfg.MaxResults, "max-results", maxResults, "results a REST search returns, 1..1000 (env MCPDIR_MAX_RESULTS)")
	searchCache, err := strconv.Atoi(env.or("MCPDIR_SEARCH_CACHE", strconv.Itoa(search.DefaultResultCache)))
	if err != nil {
		return usageError{"MCPDIR_SEARCH_CACHE must be a number"}
	}
	fs.IntVar(&cfg.SearchCache, "search-cache", searchCache, "searches whose results are kept until the directory changes; 0: none (env MCPDIR_SEARCH_CACHE)")
	fs.DurationVar(&cfg.FeedInterval, "feed-interval", 250*time.Millisecond, "how often to look for writes by other processes")
	origins := fs.String("allowed-origins", env("MCPDIR_ALLOWED_ORIGINS"), "comma-separated browser origins allowed to call the MCP endpoint, or * (env MCPDIR_ALLOWED_ORIGINS)")
	fs.BoolVar(&cfg.Baseline, "bench-baseline", false, "mount GET /debug/baseline, a precomputed body for load benchmarks")
	fs.DurationVar(&cfg.Timeouts.Header, "header-timeout", mcpdirhttp.DefaultTimeouts.Header, "time a client has to send a request's headers")
	fs.DurationVar(&cfg.Timeouts.Request, "request-timeout", mcpdirhttp.DefaultTimeouts.Request, "time a client has to send a request's body and take the answer (event streams excepted)")
	fs.DurationVar(&cfg.Timeouts.Idle, "idle-timeout", mcpdirhttp.DefaultTimeouts.Idle, "a keep-alive connection idle this long is closed")
	fs.StringVar(&cfg.RedisURL, "redis-url", env("MCPDIR_REDIS_URL"), "Redis URL (redis://host:port/db) for rate limits shared by every replica; unset: counted in this process (env MCPDIR_REDIS_URL)")
	fs.StringVar(&logFormat, "log-format", env("MCPDIR_LOG_FORMAT"), "json or text (env MCPDIR_LOG_FORMAT; default text when standard error is a terminal, else json)")
	fs.BoolVar(&cfg.AccessLog, "access-log", env("MCPDIR_ACCESS_LOG") != "0" && env("MCPDIR_ACCESS_LOG") != "false", "one log line per request, at info (env MCPDIR_ACCESS_LOG=0 turns it off)")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", env("MCPDIR_METRICS_ADDR"), "serve /metrics on a listener of its own (e.g. 127.0.0.1:9090); unset: on the main listener, to this machine and admin keys (env MCPDIR_METRICS_ADDR)")
	fs.StringVar(&cfg.SyncFrom, "sync-from", env("MCPDIR_SYNC_FROM"), "follow this registry's list API (e.g. https://registry.modelcontextprotocol.io): sync at start and every --sync-every (env MCPDIR_SYNC_FROM)")
	fs.DurationVar(&cfg.SyncEvery, "sync-every", time.Hour, "how often to sync with --sync-from")
	fs.BoolVar(&cfg.SyncPrivate, "sync-allow-private", envTrue(env("MCPDIR_SYNC_ALLOW_PRIVATE")), "let --sync-from reach loopback, private and other non-public addresses (env MCPDIR_SYNC_ALLOW_PRIVATE=1)")
	fs.BoolVar(&cfg.SyncProxy, "sync-proxy-from-env", envTrue(env("MCPDIR_SYNC_PROXY_FROM_ENV")), "fetch --sync-from through the proxy HTTPS_PROXY/HTTP_PROXY name (env MCPDIR_SYNC_PROXY_FROM_ENV=1)")
	verifying := fs.String("verifying-registries", env.or("MCPDIR_VERIFYING_REGISTRIES", mcpdir.OfficialRegistry), "comma-separated base URLs of the followed registries that verify namespaces and package ownership, as the official one does: their records may join entries by name and package (env MCPDIR_VERIFYING_REGISTRIES; docs/trust.md)")
	fs.StringVar(&cfg.Listing, "listing", env.or("MCPDIR_LISTING", service.ListingAll), "all: every entry is served; approved: only the entries an admin approved (POST /api/admin/v1/entries/{id}/approve), an organisation's private catalogue (env MCPDIR_LISTING)")
	checkEvery := seconds(0)
	if v := env("MCPDIR_CHECK_EVERY"); v != "" {
		if err := checkEvery.Set(v); err != nil {
			return usageError{"MCPDIR_CHECK_EVERY: " + err.Error()}
		}
	}
	fs.Var(&checkEvery, "check-every", "live-check the remote endpoints of entries at start and then this often: a Go duration (6h) or seconds, at least 1s (env MCPDIR_CHECK_EVERY; unset: no checks)")
	fs.BoolVar(&cfg.CheckPrivate, "check-allow-private", env("MCPDIR_CHECK_ALLOW_PRIVATE") == "1" || env("MCPDIR_CHECK_ALLOW_PRIVATE") == "true", "let live checks reach loopback, private and other non-public addresses, for tests (env MCPDIR_CHECK_ALLOW_PRIVATE=1)")
	fs.StringVar(&signup, "signup", env.or("MCPDIR_SIGNUP", "open"), "open: anyone may sign up for an account and keys; closed: only the operator makes keys (env MCPDIR_SIGNUP)")
	fs.StringVar(&cfg.PublicURL, "public-url", env("MCPDIR_PUBLIC_URL"), "the server's public base URL: the client configurations the pages show, and the OAuth issuer (env MCPDIR_PUBLIC_URL; default http:// + the address listened on, localhost for every interface)")
	fs.IntVar(&cfg.PagesPerMinute, "page-rate-limit", 120, "pages a client address may ask for a minute (0: no limit)")
	fs.StringVar(&cfg.RegistryAPI, "registry-api", env.or("MCPDIR_REGISTRY_API", "public"), "serve the MCP Registry's read API at /v0.1/servers: public, key (holders of a key) or off (env MCPDIR_REGISTRY_API)")
	fs.IntVar(&cfg.RegistryPerMinute, "registry-rate-limit", 600, "requests a client address may make of the public registry API a minute (0: no limit)")
	proxies := fs.String("trusted-proxies", env("MCPDIR_TRUSTED_PROXIES"), "comma-separated addresses or networks of the proxies in front, whose X-Forwarded-For names the client (env MCPDIR_TRUSTED_PROXIES)")
	fs.StringVar(&logLevel, "log-level", env.or("MCPDIR_LOG_LEVEL", "info"), "debug, info, warn or error (env MCPDIR_LOG_LEVEL)")
	insightDays, err := strconv.Atoi(env.or("MCPDIR_INSIGHT_DAYS", strconv.Itoa(mcpdir.InsightDays)))
	if err != nil {
		return usageError{"MCPDIR_INSIGHT_DAYS must be a number"}
	}
	fs.IntVar(&cfg.InsightDays, "insight-days", insightDays, "days the insight (searches by door, queries, keys' use; GET /api/admin/v1/insights) is kept, 1..3650 (env MCPDIR_INSIGHT_DAYS)")
	queryLog := fs.String("query-log", env.or("MCPDIR_QUERY_LOG", "on"), "on: the insight keeps the queries asked, normalised and counted, never with a key, account or address; off: counts only (env MCPDIR_QUERY_LOG)")
	if args, err = parseFlags(fs, args); err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{fmt.Sprintf("serve takes no arguments (got %q)", args[0])}
	}
	if cfg.MaxResults < 1 || cfg.MaxResults > 1000 {
		return usageError{"--max-results must be between 1 and 1000"}
	}
	if cfg.SearchCache < 0 || cfg.SearchCache > 1<<20 {
		return usageError{"--search-cache must be between 0 and 1048576"}
	}
	cfg.OpenStore, cfg.StoreName = storeAt.open, storeAt.where()
	cfg.SignupClosed = signup == "closed"
	if cfg.CheckEvery = time.Duration(checkEvery); cfg.CheckEvery != 0 && cfg.CheckEvery < time.Second {
		return usageError{"--check-every must be at least 1s (hours suit a directory; seconds, tests)"}
	}
	if cfg.InsightDays < 1 || cfg.InsightDays > 3650 {
		return usageError{"--insight-days must be between 1 and 3650"}
	}
	if *queryLog != "on" && *queryLog != "off" {
		return usageError{"--query-log must be on or off"}
	}
	cfg.QueryLogOff = *queryLog == "off"
	if cfg.Listing != service.ListingAll && cfg.Listing != service.ListingApproved {
		return usageError{"--listing must be all or approved"}
	}
	if cfg.RegistryAPI != "public" && cfg.RegistryAPI != "key" && cfg.RegistryAPI != "off" {
		return usageError{"--registry-api must be public, key or off"}
	}
	if logFormat = strings.TrimSpace(logFormat); logFormat != "" && logFormat != "json" && logFormat != "text" {
		return usageError{"--log-format must be json or text"}
	}
	if signup != "open" && signup != "closed" {
		return usageError{"--signup must be open or closed"}
	}
	if cfg.TrustedProxies, err = mcpdirhttp.ParseTrustedProxies(*proxies); err != nil {
		return usageError{fmt.Sprintf("--trusted-proxies: %v", err)}
	}
	if cfg.Trust, err = parseTrust(*verifying); err != nil {
		return usageError{"--verifying-registries: " + err.Error()}
	}
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.AllowedOrigins = append(cfg.AllowedOrigins, o)
		}
	}
	if storeAt.databaseURL == "" {
		// mcpdir migrate refuses to copy a store a server still writes to.
		release, err := sqlite.Serve(storeAt.dataDir)
		if err != nil {
			return err
		}
		defer release()
	}
	return runServer(ctx, cfg, logLevel, logFormat, stderr)
}

// runServer serves until ctx ends; the log goes to stderr, text on a
// terminal unless a format is asked for.
func runServer(ctx context.Context, cfg service.Config, logLevel, logFormat string, stderr io.Writer) error {
	// Requests never wait on the log: lines are buffered and written a
	// moment later, and every one is written before this returns.
	var logger *slog.Logger
	logOut := logwriter.New(stderr, logwriter.Options{OnDrop: func(lines int) {
		logger.Warn("the log output fell behind: lines were dropped", "lines", lines)
	}})
	defer logOut.Close()
	logger = newLogger(logOut, logLevel, logFormatFor(logFormat, isTerminal(stderr)))
	cfg.Logger, cfg.DroppedLogLines, cfg.Version, cfg.Clock = logger, logOut.Dropped, version, clock
	// A soft heap limit below the memory there is, and below the live heap
	// plus a headroom (unless GOMEMLIMIT says otherwise).
	if soft, limit, cgroup := memlimit.Set(os.DirFS("/")); soft > 0 {
		msg, of := "heap limit set below the machine's memory", "machine_bytes"
		if cgroup {
			msg, of = "heap limit set below the container's memory limit", "container_bytes"
		}
		logger.Info(msg, of, limit, "soft_limit_bytes", soft, "headroom_bytes", memlimit.Headroom)
		defer memlimit.Follow(soft, memlimit.Headroom)()
	}
	svc, err := service.Open(ctx, cfg)
	if errors.As(err, new(service.ConfigError)) {
		return usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	defer svc.Close()
	return svc.Run(ctx)
}
