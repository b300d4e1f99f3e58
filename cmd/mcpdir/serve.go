package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/changefeed"
	mcpdirhttp "github.com/mcpdir/mcpdir/http"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/logwriter"
	"github.com/mcpdir/mcpdir/mcp"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/metrics"
	"github.com/mcpdir/mcpdir/netguard"
	"github.com/mcpdir/mcpdir/oauth"
	"github.com/mcpdir/mcpdir/redis"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/starter"
	"github.com/mcpdir/mcpdir/toolsearch"
	"github.com/mcpdir/mcpdir/web"
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

// answerCacheBytes bounds the encoded answers each interface keeps beside
// the index's results (about 1,300 search_mcp answers of 50 hits), or none
// when no results are kept.
func answerCacheBytes(searchCache int) int {
	if searchCache == 0 {
		return 0
	}
	return 32 << 20
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
	store, err := cfg.store.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()

	if !cfg.noStarter {
		added, err := starter.Seed(ctx, store)
		if err != nil {
			return err
		}
		if added > 0 {
			logger.Info("loaded the starter directory into the empty store", "entries", added)
		}
	}
	// Read the feed position before loading, so that a write landing during
	// the load is applied again afterwards rather than missed.
	seq, err := store.LatestChange(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	index, inner, tools, err := buildDirectory(ctx, store, cfg.searchCache)
	if err != nil {
		return err
	}
	logger.Info("index built", "entries", index.Len(), "took", time.Since(start).Round(time.Millisecond))

	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBackground()
	local := memory.NewLimiter(clock)
	var limiter mcpdir.RateLimiter = local
	var shared *redis.Limiter
	if cfg.redisURL != "" {
		if shared, err = redis.NewLimiter(bg, cfg.redisURL, local, logger, redis.Options{}); err != nil {
			return usageError{err.Error()}
		}
		defer shared.Close()
		limiter = shared
	}
	guard := auth.New(store, limiter, logger)
	if err := guard.Load(ctx); err != nil {
		return err
	}
	// Failed logins and pages per address are counted where budgets are:
	// in Redis, shared by every replica, when there is one.
	pageLimiter, loginFailures := memory.NewLimiter(nil), memory.NewLimiter(nil)
	perAddress, failures := mcpdir.RateLimiter(pageLimiter), mcpdir.RateLimiter(loginFailures)
	if shared != nil {
		perAddress, failures = shared, shared
	}
	// The embedded store keeps the budgets across restarts.
	windows, _ := store.(windowStore)
	if shared != nil {
		windows = nil
	}
	kept := map[string]*memory.Limiter{"keys": local, "logins": loginFailures}
	if windows != nil {
		if err := restoreWindows(ctx, windows, kept); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	defer ln.Close()
	if cfg.publicURL == "" {
		cfg.publicURL = defaultPublicURL(ln.Addr())
	}
	// keys create puts this URL in the client configurations it prints.
	announced := strings.TrimRight(cfg.publicURL, "/")
	if old, err := store.State(ctx, publicURLKey); err == nil && old != announced {
		if err := store.SetState(ctx, publicURLKey, announced); err != nil {
			logger.Warn("cannot record the public URL for keys create", "err", err)
		}
	}

	m := metrics.New(index.Len, logOut.Dropped)
	searcher := m.Index(index)
	pages, err := web.New(searcher, logger)
	if err != nil {
		return err
	}
	authServer := oauth.New(oauth.Config{
		Store:     store,
		Limiter:   limiter,
		Budgets:   guard,
		Pages:     pages,
		ClientIP:  cfg.trustedProxies.ClientIP,
		PublicURL: cfg.publicURL,
		Documents: oauth.NewDocuments(netguard.New(netguard.Options{}).Client(0)),
		Logger:    logger,
		Observer:  m,
	})
	counted := m.Guard(authServer.Guard(guard))
	mcpCfg := mcp.Config{
		ResourceMetadata: authServer.ResourceMetadataURL(),
		Index:            searcher,
		Tools:            tools,
		Guard:            counted,
		Observer:         m,
		Logger:           logger,
		AllowedOrigins:   cfg.allowedOrigins,
		ServerVersion:    version,
		AnswerCacheBytes: answerCacheBytes(cfg.searchCache),
	}
	if cfg.redisURL != "" {
		sessions, err := redis.NewSessions(cfg.redisURL)
		if err != nil {
			return usageError{err.Error()}
		}
		defer sessions.Close()
		mcpCfg.Shared = sessions
	}
	mcpHandler, err := mcp.NewHandler(mcpCfg)
	if err != nil {
		return err
	}
	defer mcpHandler.Close()
	m.Cache("results", inner.ResultLookups)
	m.Cache("mcp_answers", mcpHandler.AnswerLookups)

	pages.WithAccounts(&web.AccountConfig{
		Apps:      authServer,
		Accounts:  accounts.New(store, failures),
		Store:     store,
		Keys:      guard,
		SignupOff: cfg.signup == "closed",
		PublicURL: cfg.publicURL,
		ClientIP:  cfg.trustedProxies.ClientIP,
	})
	var ready atomic.Bool
	storeUp := watchStore(bg, store, logger)
	// The registry API, when on, also follows versions written elsewhere.
	followers := changefeed.Followers{Keys: guard, Grants: authServer, State: func(ctx context.Context, keys []string) error {
		if !slices.Contains(keys, merge.SplitsKey) {
			return nil
		}
		s, err := loadSplits(ctx, store)
		if err == nil {
			index.SetSplits(s)
		}
		return err
	}}
	var registryRoutes mcpdirhttp.Routed
	if api := registryOf(cfg.registryAPI, index, store, logger); api != nil {
		registryRoutes, followers.Versions = api, api.VersionsChanged
	}
	handler := mcpdirhttp.NewServer(mcpdirhttp.Config{
		Logger:            logger,
		Index:             searcher,
		Tools:             tools,
		Guard:             counted,
		Store:             store,
		AdminGuard:        guard,
		Observer:          m,
		MaxResults:        cfg.maxResults,
		Baseline:          cfg.baseline,
		Timeouts:          cfg.timeouts,
		AccessLog:         cfg.accessLog,
		Metrics:           metricsOnMain(cfg.metricsAddr, m),
		MCP:               mcpHandler,
		Pages:             pages,
		PagesPerMinute:    cfg.pagesPerMinute,
		PageLimiter:       perAddress,
		OAuth:             authServer,
		TrustedProxies:    cfg.trustedProxies,
		Registry:          registryRoutes,
		RegistryAccess:    cfg.registryAPI,
		RegistryPerMinute: cfg.registryPerMinute,
		Ready:             readiness(&ready, storeUp, shared),
	})

	var metricsLn net.Listener
	if cfg.metricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", cfg.metricsAddr); err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.metricsAddr, err)
		}
	}
	srv := mcpdirhttp.NewHTTPServer(handler, cfg.timeouts, slogErrorLog(logger))
	// Open event streams would otherwise hold Shutdown until its deadline.
	srv.RegisterOnShutdown(mcpHandler.Close)

	var wg sync.WaitGroup
	wg.Go(func() {
		changefeed.Follow(bg, store, seq, cfg.feedInterval, changefeed.Applier(store, index, followers), logger, m.CaughtUp)
	})
	wg.Go(func() { guard.RunFlusher(bg, 5*time.Second) })
	wg.Go(func() { sweepLimiter(bg, local) })
	wg.Go(func() { sweepLimiter(bg, pageLimiter) })
	wg.Go(func() { sweepLimiter(bg, loginFailures) })
	wg.Go(func() { authServer.Run(bg) })
	if windows != nil {
		wg.Go(func() { keepWindows(bg, windows, kept, 5*time.Second, logger) })
	}
	if cfg.syncFrom != "" {
		wg.Go(func() { runSync(bg, store, cfg.syncFrom, max(cfg.syncEvery, time.Minute), logger, m.SyncRan) })
	}
	if cfg.checkEvery > 0 {
		c := newChecker(cfg.checkPrivate, livecheck.DefaultTimeout, livecheck.DefaultConcurrency)
		c.Observe = m.LiveChecked
		c.ToolsChanged = m.ToolsChanged
		wg.Go(func() { runChecks(bg, store, c, cfg.checkEvery, logger) })
	}

	serveErr := make(chan error, 2)
	go func() { serveErr <- srv.Serve(ln) }()
	if metricsLn != nil {
		msrv := mcpdirhttp.NewHTTPServer(m.Handler(), cfg.timeouts, slogErrorLog(logger))
		go func() { serveErr <- msrv.Serve(metricsLn) }()
		defer msrv.Close()
		logger.Info("metrics", "addr", metricsLn.Addr().String())
	}
	ready.Store(true)
	logger.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "store", cfg.store.where())
	if keys, err := store.Keys(ctx); err == nil && len(keys) == 0 {
		logger.Info("no API key exists yet: make one with `mcpdir keys create --name NAME " + cfg.store.where() + "`")
	}

	select {
	case err := <-serveErr:
		stopBackground()
		wg.Wait()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining in-flight requests")
	ready.Store(false)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	stopBackground()
	wg.Wait()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// defaultPublicURL is the server's own address as a URL, for a server
// without --public-url: localhost when it listens on every interface.
func defaultPublicURL(addr net.Addr) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
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

// keepWindows writes the windows that changed every interval, and once
// more when ctx ends (after the last request was answered).
func keepWindows(ctx context.Context, store windowStore, limiters map[string]*memory.Limiter, every time.Duration, logger *slog.Logger) {
	save := func(ctx context.Context) {
		for name, l := range limiters {
			if changed := l.TakeChanged(); len(changed) > 0 {
				if err := store.SaveRateWindows(ctx, name, changed); err != nil {
					logger.Warn("cannot keep the rate windows; a restart would forget them", "err", err)
				}
			}
		}
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			save(final)
			cancel()
			return
		case <-t.C:
			save(ctx)
		}
	}
}

func sweepLimiter(ctx context.Context, l *memory.Limiter) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.Sweep(mcpdir.RateWindow)
		}
	}
}

// watchStore pings the store every 2 s and reports whether it answers,
// logging when it stops and when it is back (the pool reconnects by
// itself).
func watchStore(ctx context.Context, store interface{ Ping(context.Context) error }, logger *slog.Logger) *atomic.Bool {
	up := new(atomic.Bool)
	up.Store(true)
	go func() {
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
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
	}()
	return up
}

// metricsOnMain is what the main listener serves at /metrics: nothing when
// they have a listener of their own.
func metricsOnMain(metricsAddr string, m *metrics.Metrics) http.Handler {
	if metricsAddr != "" {
		return nil
	}
	return m.Handler()
}

// readiness is what /readyz reports: not ready while starting or stopping,
// and each dependency's state.
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

// registryOf is the registry API over the index and the versions history
// (its write side keeps versions in the store), or none when it is off.
func registryOf(access string, index registryapi.Directory, store mcpdir.Store, logger *slog.Logger) *registryapi.API {
	if access == "off" {
		return nil
	}
	return &registryapi.API{
		Dir: index, History: store, MaxAge: time.Minute, Log: logger,
		Keep: func(ctx context.Context, vs []*mcpdir.ServerVersion) error {
			_, err := registry.Keep(ctx, store, vs)
			return err
		},
	}
}

// loadSplits reads the pairs of records an admin declared distinct.
func loadSplits(ctx context.Context, store mcpdir.StateStore) (merge.Splits, error) {
	s := merge.Splits{}
	raw, err := store.State(ctx, merge.SplitsKey)
	if err != nil || raw == "" {
		return s, err
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return nil, fmt.Errorf("read the merge's splits: %w", err)
	}
	return s, nil
}

// buildDirectory is the directory's search index over the store: one
// entry per server, the records of one server (a registry's, its npm
// package's, …) merged (package merge), with results kept for
// searchCache searches; and the index of their tools (package
// toolsearch).
func buildDirectory(ctx context.Context, store mcpdir.Store, searchCache int) (*merge.Index, *search.Index, *toolsearch.Index, error) {
	splits, err := loadSplits(ctx, store)
	if err != nil {
		return nil, nil, nil, err
	}
	inner := search.New()
	inner.SetResultCache(searchCache)
	tools := toolsearch.New(inner)
	index := merge.NewIndex(tools, splits)
	var all []*mcpdir.Entry
	if err := store.AllEntries(ctx, func(e *mcpdir.Entry) error { all = append(all, e); return nil }); err != nil {
		return nil, nil, nil, fmt.Errorf("build index: %w", err)
	}
	index.Upsert(all...)
	return index, inner, tools, nil
}
