package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	mcpdirhttp "github.com/mcpdir/mcpdir/http"
	"github.com/mcpdir/mcpdir/logwriter"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/service"
)

// clock is the time the rate limiter counts by; tests move it.
var clock = time.Now

// serveConfig is every setting of mcpdir serve.
type serveConfig struct {
	addr           string
	store          *storeFlags
	noStarter      bool
	maxResults     int
	searchCache    int
	feedInterval   time.Duration
	logLevel       string
	baseline       bool
	allowedOrigins []string
	timeouts       mcpdirhttp.Timeouts
	redisURL       string
	logFormat      string
	accessLog      bool
	metricsAddr    string
	syncFrom       string
	syncEvery      time.Duration
	checkEvery     time.Duration
	checkPrivate   bool
	pagesPerMinute int
	// registryAPI is who may read /v0.1/servers: public, key or off.
	registryAPI       string
	registryPerMinute int
	trustedProxies    mcpdirhttp.TrustedProxies
	signup            string
	publicURL         string
}

func serve(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, storeAt := newFlags("serve", env, stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.addr, "addr", env.or("MCPDIR_ADDR", "127.0.0.1:8080"), "address to listen on (env MCPDIR_ADDR)")
	fs.BoolVar(&cfg.noStarter, "no-starter", env("MCPDIR_NO_STARTER") == "1" || env("MCPDIR_NO_STARTER") == "true", "do not load the starter directory into an empty store (env MCPDIR_NO_STARTER=1)")
	maxResults, err := strconv.Atoi(env.or("MCPDIR_MAX_RESULTS", "50"))
	if err != nil {
		return usageError{"MCPDIR_MAX_RESULTS must be a number"}
	}
	fs.IntVar(&cfg.maxResults, "max-results", maxResults, "results a REST search returns, 1..1000 (env MCPDIR_MAX_RESULTS)")
	searchCache, err := strconv.Atoi(env.or("MCPDIR_SEARCH_CACHE", strconv.Itoa(search.DefaultResultCache)))
	if err != nil {
		return usageError{"MCPDIR_SEARCH_CACHE must be a number"}
	}
	fs.IntVar(&cfg.searchCache, "search-cache", searchCache, "searches whose results are kept until the directory changes; 0: none (env MCPDIR_SEARCH_CACHE)")
	fs.DurationVar(&cfg.feedInterval, "feed-interval", 250*time.Millisecond, "how often to look for writes by other processes")
	origins := fs.String("allowed-origins", env("MCPDIR_ALLOWED_ORIGINS"), "comma-separated browser origins allowed to call the MCP endpoint, or * (env MCPDIR_ALLOWED_ORIGINS)")
	fs.BoolVar(&cfg.baseline, "bench-baseline", false, "mount GET /debug/baseline, a precomputed body for load benchmarks")
	fs.DurationVar(&cfg.timeouts.Header, "header-timeout", mcpdirhttp.DefaultTimeouts.Header, "time a client has to send a request's headers")
	fs.DurationVar(&cfg.timeouts.Request, "request-timeout", mcpdirhttp.DefaultTimeouts.Request, "time a client has to send a request's body and take the answer (event streams excepted)")
	fs.DurationVar(&cfg.timeouts.Idle, "idle-timeout", mcpdirhttp.DefaultTimeouts.Idle, "a keep-alive connection idle this long is closed")
	fs.StringVar(&cfg.redisURL, "redis-url", env("MCPDIR_REDIS_URL"), "Redis URL (redis://host:port/db) for rate limits shared by every replica; unset: counted in this process (env MCPDIR_REDIS_URL)")
	fs.StringVar(&cfg.logFormat, "log-format", env("MCPDIR_LOG_FORMAT"), "json or text (env MCPDIR_LOG_FORMAT; default text when standard error is a terminal, else json)")
	fs.BoolVar(&cfg.accessLog, "access-log", env("MCPDIR_ACCESS_LOG") != "0" && env("MCPDIR_ACCESS_LOG") != "false", "one log line per request, at info (env MCPDIR_ACCESS_LOG=0 turns it off)")
	fs.StringVar(&cfg.metricsAddr, "metrics-addr", env("MCPDIR_METRICS_ADDR"), "serve /metrics on a listener of its own (e.g. 127.0.0.1:9090); unset: on the main listener, to this machine and admin keys (env MCPDIR_METRICS_ADDR)")
	fs.StringVar(&cfg.syncFrom, "sync-from", env("MCPDIR_SYNC_FROM"), "follow this registry's list API (e.g. https://registry.modelcontextprotocol.io): sync at start and every --sync-every (env MCPDIR_SYNC_FROM)")
	fs.DurationVar(&cfg.syncEvery, "sync-every", time.Hour, "how often to sync with --sync-from")
	checkEvery := seconds(0)
	if v := env("MCPDIR_CHECK_EVERY"); v != "" {
		if err := checkEvery.Set(v); err != nil {
			return usageError{"MCPDIR_CHECK_EVERY: " + err.Error()}
		}
	}
	fs.Var(&checkEvery, "check-every", "live-check the remote endpoints of entries at start and then this often: a Go duration (6h) or seconds, at least 1s (env MCPDIR_CHECK_EVERY; unset: no checks)")
	fs.BoolVar(&cfg.checkPrivate, "check-allow-private", env("MCPDIR_CHECK_ALLOW_PRIVATE") == "1" || env("MCPDIR_CHECK_ALLOW_PRIVATE") == "true", "let live checks reach loopback, private and other non-public addresses, for tests (env MCPDIR_CHECK_ALLOW_PRIVATE=1)")
	fs.StringVar(&cfg.signup, "signup", env.or("MCPDIR_SIGNUP", "open"), "open: anyone may sign up for an account and keys; closed: only the operator makes keys (env MCPDIR_SIGNUP)")
	fs.StringVar(&cfg.publicURL, "public-url", env("MCPDIR_PUBLIC_URL"), "the server's public base URL: the client configurations the pages show, and the OAuth issuer (env MCPDIR_PUBLIC_URL; default http:// + the address listened on, localhost for every interface)")
	fs.IntVar(&cfg.pagesPerMinute, "page-rate-limit", 120, "pages a client address may ask for a minute (0: no limit)")
	fs.StringVar(&cfg.registryAPI, "registry-api", env.or("MCPDIR_REGISTRY_API", "public"), "serve the MCP Registry's read API at /v0.1/servers: public, key (holders of a key) or off (env MCPDIR_REGISTRY_API)")
	fs.IntVar(&cfg.registryPerMinute, "registry-rate-limit", 600, "requests a client address may make of the public registry API a minute (0: no limit)")
	proxies := fs.String("trusted-proxies", env("MCPDIR_TRUSTED_PROXIES"), "comma-separated addresses or networks of the proxies in front, whose X-Forwarded-For names the client (env MCPDIR_TRUSTED_PROXIES)")
	fs.StringVar(&cfg.logLevel, "log-level", env.or("MCPDIR_LOG_LEVEL", "info"), "debug, info, warn or error (env MCPDIR_LOG_LEVEL)")
	if args, err = parseFlags(fs, args); err != nil {
		return err
	}
	if len(args) > 0 {
		return usageError{fmt.Sprintf("serve takes no arguments (got %q)", args[0])}
	}
	if cfg.maxResults < 1 || cfg.maxResults > 1000 {
		return usageError{"--max-results must be between 1 and 1000"}
	}
	if cfg.searchCache < 0 || cfg.searchCache > 1<<20 {
		return usageError{"--search-cache must be between 0 and 1048576"}
	}
	cfg.store = storeAt
	if cfg.checkEvery = time.Duration(checkEvery); cfg.checkEvery != 0 && cfg.checkEvery < time.Second {
		return usageError{"--check-every must be at least 1s (hours suit a directory; seconds, tests)"}
	}
	if cfg.registryAPI != "public" && cfg.registryAPI != "key" && cfg.registryAPI != "off" {
		return usageError{"--registry-api must be public, key or off"}
	}
	if cfg.logFormat = strings.TrimSpace(cfg.logFormat); cfg.logFormat != "" && cfg.logFormat != "json" && cfg.logFormat != "text" {
		return usageError{"--log-format must be json or text"}
	}
	if cfg.signup != "open" && cfg.signup != "closed" {
		return usageError{"--signup must be open or closed"}
	}
	if cfg.trustedProxies, err = mcpdirhttp.ParseTrustedProxies(*proxies); err != nil {
		return usageError{fmt.Sprintf("--trusted-proxies: %v", err)}
	}
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.allowedOrigins = append(cfg.allowedOrigins, o)
		}
	}
	return runServer(ctx, cfg, stderr)
}

func runServer(ctx context.Context, cfg serveConfig, stderr io.Writer) error {
	// Requests never wait on the log: lines are buffered and written a
	// moment later, and every one is written before this returns.
	var logger *slog.Logger
	logOut := logwriter.New(stderr, logwriter.Options{OnDrop: func(lines int) {
		logger.Warn("the log output fell behind: lines were dropped", "lines", lines)
	}})
	defer logOut.Close()
	logger = newLogger(logOut, cfg.logLevel, logFormat(cfg.logFormat, isTerminal(stderr)))
	svc, err := service.Open(ctx, service.Config{
		Addr:              cfg.addr,
		OpenStore:         cfg.store.open,
		StoreName:         cfg.store.where(),
		NoStarter:         cfg.noStarter,
		MaxResults:        cfg.maxResults,
		SearchCache:       cfg.searchCache,
		FeedInterval:      cfg.feedInterval,
		Baseline:          cfg.baseline,
		AllowedOrigins:    cfg.allowedOrigins,
		Timeouts:          cfg.timeouts,
		RedisURL:          cfg.redisURL,
		AccessLog:         cfg.accessLog,
		MetricsAddr:       cfg.metricsAddr,
		SyncFrom:          cfg.syncFrom,
		SyncEvery:         cfg.syncEvery,
		CheckEvery:        cfg.checkEvery,
		CheckPrivate:      cfg.checkPrivate,
		PagesPerMinute:    cfg.pagesPerMinute,
		RegistryAPI:       cfg.registryAPI,
		RegistryPerMinute: cfg.registryPerMinute,
		TrustedProxies:    cfg.trustedProxies,
		SignupClosed:      cfg.signup == "closed",
		PublicURL:         cfg.publicURL,
		Version:           version,
		Clock:             clock,
		Logger:            logger,
		DroppedLogLines:   logOut.Dropped,
	})
	if errors.As(err, new(service.ConfigError)) {
		return usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	defer svc.Close()
	return svc.Run(ctx)
}
