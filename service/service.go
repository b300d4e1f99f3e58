// Package service assembles the directory's server from its parts — the
// store, the search index, keys and rate limits, the web pages, OAuth, MCP,
// the HTTP surface and the background jobs — so that cmd/mcpdir only turns
// flags into a Config and calls Open, Run and Close.
//
// Open listens first: a busy port fails at once, and while the store opens
// and the index is built the port answers /readyz 503 ("starting").
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/adminops"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/changefeed"
	mcpdirhttp "github.com/mcpdir/mcpdir/http"
	"github.com/mcpdir/mcpdir/insight"
	"github.com/mcpdir/mcpdir/jobs"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/mcp"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/metrics"
	"github.com/mcpdir/mcpdir/netguard"
	"github.com/mcpdir/mcpdir/oauth"
	"github.com/mcpdir/mcpdir/redis"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/starter"
	"github.com/mcpdir/mcpdir/web"
)

// Config is every setting of the server.
type Config struct {
	Addr string
	// OpenStore opens the store (SQLite or PostgreSQL); StoreName names it
	// in logs, without secrets.
	OpenStore func(ctx context.Context) (mcpdir.Store, error)
	StoreName string
	NoStarter bool
	// MaxResults is what a REST search returns at most; SearchCache, the
	// searches whose results are kept (0: none).
	MaxResults, SearchCache int
	// FeedInterval is how often to look for writes by other processes.
	FeedInterval   time.Duration
	Baseline       bool
	AllowedOrigins []string
	Timeouts       mcpdirhttp.Timeouts
	RedisURL       string
	AccessLog      bool
	MetricsAddr    string
	SyncFrom       string
	// Trust says which followed registries verify what their records
	// claim (docs/trust.md); zero: mcpdir.DefaultTrust.
	Trust mcpdir.Trust
	// Listing is ListingAll (every entry) or ListingApproved (only those
	// an admin approved: an organisation's private catalogue).
	Listing   string
	SyncEvery time.Duration
	// SyncPrivate lets the sync reach non-public addresses; SyncProxy
	// fetches through the environment's proxy.
	SyncPrivate, SyncProxy bool
	// CheckEvery is the live checks' interval (0: none); CheckPrivate lets
	// them reach non-public addresses.
	CheckEvery   time.Duration
	CheckPrivate bool
	// PagesPerMinute limits pages per client address (0: none).
	PagesPerMinute int
	// RegistryAPI is who may read /v0.1/servers: public, key or off.
	RegistryAPI       string
	RegistryPerMinute int
	TrustedProxies    mcpdirhttp.TrustedProxies
	// SignupClosed: only the operator makes keys.
	SignupClosed bool
	// PublicURL is the base URL people and clients use; default the
	// address listened on.
	PublicURL string
	Version   string
	// Clock is the time rate limits count by (nil: time.Now).
	Clock  func() time.Time
	Logger *slog.Logger
	// DroppedLogLines counts log lines the log output dropped (a metric).
	DroppedLogLines func() uint64
	// InsightDays is how many days the insight keeps (0:
	// mcpdir.InsightDays); QueryLogOff keeps its counts but no query text.
	InsightDays int
	QueryLogOff bool
}

// Service is a running server.
type Service struct {
	cfg     Config
	log     *slog.Logger
	front   *mcpdirhttp.Switch
	ln      net.Listener
	srv     *http.Server
	msrv    *http.Server
	served  chan error
	ready   atomic.Bool
	closers []func()

	store     mcpdir.Store
	seq       int64
	jobs      []jobs.Job
	publicURL string
}

// PublicURLKey is the state under which the server records the public URL
// it announces, for `mcpdir keys create` to put in client configurations.
const PublicURLKey = "serve:public_url"

// Open listens on the address (and the metrics address), answering as
// "starting" at once, then opens the store, loads the starter directory
// into an empty one, builds the index and every part, and switches to the
// real handler. It returns when the service is ready; Run serves it.
func Open(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.DroppedLogLines == nil {
		cfg.DroppedLogLines = func() uint64 { return 0 }
	}
	s := &Service{cfg: cfg, log: cfg.Logger, front: mcpdirhttp.NewSwitch(), served: make(chan error, 2)}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	s.ln = ln
	errorLog := slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	var metricsFront *mcpdirhttp.Switch
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("listen on %s: %w", cfg.MetricsAddr, err)
		}
		metricsFront = mcpdirhttp.NewSwitch()
		s.msrv = mcpdirhttp.NewHTTPServer(metricsFront, cfg.Timeouts, errorLog)
		go func() { s.served <- s.msrv.Serve(mln) }()
		s.log.Info("metrics", "addr", mln.Addr().String())
	}
	s.srv = mcpdirhttp.NewHTTPServer(s.front, cfg.Timeouts, errorLog)
	go func() { s.served <- s.srv.Serve(ln) }()
	s.log.Info("listening; starting", "addr", ln.Addr().String())

	start := time.Now()
	handler, m, err := s.open(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.front.Set(handler)
	if metricsFront != nil {
		metricsFront.Set(m.Handler())
	}
	s.ready.Store(true)
	s.log.Info("ready", "addr", ln.Addr().String(), "url", s.publicURL, "store", cfg.StoreName,
		"took", time.Since(start).Round(time.Millisecond))
	if keys, err := s.store.Keys(ctx); err == nil && len(keys) == 0 {
		s.log.Info("no API key exists yet: make one with `mcpdir keys create --name NAME " + cfg.StoreName + "`")
	}
	return s, nil
}

// Addr is the address the service listens on.
func (s *Service) Addr() net.Addr { return s.ln.Addr() }

// onClose registers what Close undoes, last first.
func (s *Service) onClose(f func()) { s.closers = append(s.closers, f) }

// open assembles the parts over the store.
func (s *Service) open(ctx context.Context) (http.Handler, *metrics.Metrics, error) {
	cfg, logger := s.cfg, s.log
	store, err := cfg.OpenStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	s.store = store
	s.onClose(func() { store.Close() })
	if !cfg.NoStarter {
		added, err := starter.Seed(ctx, store)
		if err != nil {
			return nil, nil, err
		}
		if added > 0 {
			logger.Info("loaded the starter directory into the empty store", "entries", added)
		}
	}
	// Read the feed position before loading, so that a write landing during
	// the load is applied again afterwards rather than missed.
	if s.seq, err = store.LatestChange(ctx); err != nil {
		return nil, nil, err
	}
	start := time.Now()
	index, inner, tools, err := BuildDirectory(ctx, store, cfg.SearchCache, cfg.Trust, cfg.Listing == ListingApproved)
	if err != nil {
		return nil, nil, err
	}
	logger.Info("index built", "entries", index.Len(), "took", time.Since(start).Round(time.Millisecond))

	// The background jobs' context: Run ends it after the last request.
	local := memory.NewLimiter(cfg.Clock)
	var limiter mcpdir.RateLimiter = local
	var shared *redis.Limiter
	if cfg.RedisURL != "" {
		// The limiter probes Redis until Close.
		probe, stop := context.WithCancel(context.WithoutCancel(ctx))
		s.onClose(stop)
		if shared, err = redis.NewLimiter(probe, cfg.RedisURL, local, logger, redis.Options{}); err != nil {
			return nil, nil, ConfigError{err.Error()}
		}
		s.onClose(func() { shared.Close() })
		limiter = shared
	}
	guard := auth.New(store, limiter, logger)
	if err := guard.Load(ctx); err != nil {
		return nil, nil, err
	}
	// Failed logins and pages per address are counted where budgets are:
	// in Redis, shared by every replica, when there is one.
	pageLimiter, loginFailures := memory.NewLimiter(nil), memory.NewLimiter(nil)
	perAddress, failures := mcpdir.RateLimiter(pageLimiter), mcpdir.RateReserver(loginFailures)
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
			return nil, nil, err
		}
	}

	s.publicURL = cfg.PublicURL
	if s.publicURL == "" {
		s.publicURL = DefaultPublicURL(s.ln.Addr())
	}
	// keys create puts this URL in the client configurations it prints.
	announced := strings.TrimRight(s.publicURL, "/")
	if old, err := store.State(ctx, PublicURLKey); err == nil && old != announced {
		if err := store.SetState(ctx, PublicURLKey, announced); err != nil {
			logger.Warn("cannot record the public URL for keys create", "err", err)
		}
	}

	m := metrics.New(index.Len, cfg.DroppedLogLines)
	searcher := m.Index(index)
	pages, err := web.New(searcher, logger)
	if err != nil {
		return nil, nil, err
	}
	authServer := oauth.New(oauth.Config{
		Store:     store,
		Accounts:  store,
		Limiter:   limiter,
		Budgets:   guard,
		Pages:     pages,
		ClientIP:  cfg.TrustedProxies.ClientIP,
		PublicURL: s.publicURL,
		Documents: oauth.NewDocuments(netguard.New(netguard.Options{}).Client(0)),
		Logger:    logger,
		Observer:  m,
	})
	// The insight counts each door's searches and refusals and each key's
	// requests, and adds them to the store every second.
	if cfg.InsightDays <= 0 {
		cfg.InsightDays = mcpdir.InsightDays
	}
	rec := insight.New(store, insight.Options{NoTexts: cfg.QueryLogOff, Logger: logger})
	pages.WithInsight(rec)
	counted := rec.Guard(m.Guard(authServer.Guard(guard)))
	mcpCfg := mcp.Config{
		ResourceMetadata: authServer.ResourceMetadataURL(),
		Index:            searcher,
		Tools:            tools,
		Guard:            counted,
		Observer:         m,
		Logger:           logger,
		AllowedOrigins:   cfg.AllowedOrigins,
		ServerVersion:    cfg.Version,
		AnswerCacheBytes: answerCacheBytes(cfg.SearchCache),
		Insight:          rec,
	}
	if cfg.RedisURL != "" {
		sessions, err := redis.NewSessions(cfg.RedisURL)
		if err != nil {
			return nil, nil, ConfigError{err.Error()}
		}
		s.onClose(func() { sessions.Close() })
		mcpCfg.Shared = sessions
	}
	mcpHandler, err := mcp.NewHandler(mcpCfg)
	if err != nil {
		return nil, nil, err
	}
	s.onClose(mcpHandler.Close)
	// Open event streams would otherwise hold Shutdown until its deadline.
	s.srv.RegisterOnShutdown(mcpHandler.Close)
	m.Cache("results", inner.ResultLookups)
	m.Cache("mcp_answers", mcpHandler.AnswerLookups)

	pages.WithAccounts(&web.AccountConfig{
		Apps:      authServer,
		Accounts:  accounts.New(store, failures),
		Store:     store,
		Keys:      guard,
		SignupOff: cfg.SignupClosed,
		PublicURL: s.publicURL,
		ClientIP:  cfg.TrustedProxies.ClientIP,
	})
	// The admin page, /admin: for accounts the operator promoted.
	admin := &web.AdminConfig{Ops: &adminops.Ops{Store: store, GroupOf: index.GroupOf, Logger: logger}, Audit: store,
		Entries: index.Entries, Conflicts: index.Conflicts, Insights: store}
	if cfg.SyncFrom != "" {
		admin.SyncSources = []string{cfg.SyncFrom}
	}
	pages.WithAdmin(admin)
	storeUp := new(atomic.Bool)
	storeUp.Store(true)
	// The registry API, when on, also follows versions written elsewhere.
	followers := changefeed.Followers{Keys: guard, Grants: authServer, State: func(ctx context.Context, keys []string) error {
		if cfg.Listing == ListingApproved && slices.Contains(keys, merge.ApprovedKey) {
			approved, err := loadApproved(ctx, store)
			if err != nil {
				return err
			}
			index.SetListing(approved)
		}
		if !slices.Contains(keys, merge.SplitsKey) && !slices.Contains(keys, merge.JoinsKey) {
			return nil
		}
		splits, joins, err := loadAdminRules(ctx, store)
		if err == nil {
			index.SetAdmin(splits, joins)
		}
		return err
	}}
	written := &indexWrites{store: store, index: index}
	registryAPI := registryOf(cfg.RegistryAPI, index, orDefault(cfg.Trust), store, written, logger)
	if registryAPI != nil {
		followers.Versions = registryAPI.VersionsChanged
		registryAPI.Insight = rec
	}
	handler := mcpdirhttp.NewServer(mcpdirhttp.Config{
		Logger:            logger,
		Index:             searcher,
		Conflicts:         index.Conflicts,
		GroupOf:           index.GroupOf,
		Tools:             tools,
		Guard:             counted,
		Store:             store,
		AdminGuard:        guard,
		Observer:          m,
		MaxResults:        cfg.MaxResults,
		Baseline:          cfg.Baseline,
		Timeouts:          cfg.Timeouts,
		AccessLog:         cfg.AccessLog,
		Metrics:           metricsOnMain(cfg.MetricsAddr, m),
		MCP:               mcpHandler,
		Pages:             pages,
		PagesPerMinute:    cfg.PagesPerMinute,
		PageLimiter:       perAddress,
		OAuth:             authServer,
		TrustedProxies:    cfg.TrustedProxies,
		Registry:          registryAPI,
		RegistryAccess:    cfg.RegistryAPI,
		RegistryPerMinute: cfg.RegistryPerMinute,
		Ready:             readiness(&s.ready, storeUp, shared),
		Insight:           rec,
		Insights:          store,
		InsightDays:       cfg.InsightDays,
	})

	// Every replica follows the change feed, writes what it holds and
	// sweeps its memory; a sync, live checks and the OAuth sweep run on
	// one replica at a time.
	s.jobs = []jobs.Job{
		jobs.Loop("change feed", func(ctx context.Context) {
			changefeed.Follow(ctx, store, s.seq, cfg.FeedInterval, written.follow(changefeed.Applier(store, index, followers)), logger, m.CaughtUp)
		}),
		jobs.Every("database watch", 2*time.Second, watchStore(store, storeUp, logger)),
		jobs.Loop("key last-used flush", func(ctx context.Context) { guard.RunFlusher(ctx, 5*time.Second) }),
		jobs.Every("rate limits sweep", 10*time.Minute, func(context.Context) {
			local.Sweep(mcpdir.RateWindow)
			pageLimiter.Sweep(mcpdir.RateWindow)
			loginFailures.Sweep(mcpdir.RateWindow)
		}),
		jobs.OAuthFlush(authServer, 5*time.Second),
		jobs.OAuthForget(authServer, time.Hour),
		jobs.OAuthSweep(authServer, oauth.SweepEvery),
		jobs.PruneChanges(store, time.Hour, logger),
		jobs.InsightFlush(rec, insight.FlushEvery),
		jobs.PruneInsights(store, cfg.InsightDays, time.Hour, logger),
	}
	if windows != nil {
		save := saveWindows(windows, kept, logger)
		s.jobs = append(s.jobs, jobs.Job{Name: "rate windows", Every: 5 * time.Second, Run: save, Stop: save})
	}
	if cfg.SyncFrom != "" {
		s.jobs = append(s.jobs, jobs.RegistrySync(store, cfg.SyncFrom, registry.HTTPClient(cfg.SyncPrivate, cfg.SyncProxy), cfg.Trust,
			max(cfg.SyncEvery, time.Minute), logger, m.SyncRan))
	}
	if cfg.CheckEvery > 0 {
		c := NewChecker(cfg.CheckPrivate, livecheck.DefaultTimeout, livecheck.DefaultConcurrency, cfg.Version)
		c.Observe = m.LiveChecked
		c.ToolsChanged = m.ToolsChanged
		s.jobs = append(s.jobs, jobs.LiveChecks(store, c, cfg.CheckEvery, logger))
	}
	return handler, m, nil
}

// Run runs the background jobs and serves until ctx ends (then drains the
// requests in flight, for up to 15 s, and stops the jobs) or the listener
// fails.
func (s *Service) Run(ctx context.Context) error {
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	wait := jobs.Start(bg, s.store, s.log, s.jobs...)
	select {
	case err := <-s.served:
		stop()
		wait()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: draining in-flight requests")
	s.ready.Store(false)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	err := s.srv.Shutdown(shutdownCtx)
	stop()
	wait()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// Close closes the listeners and everything Open opened.
func (s *Service) Close() error {
	s.ready.Store(false)
	var errs []error
	if s.msrv != nil {
		errs = append(errs, s.msrv.Close())
	}
	errs = append(errs, s.srv.Close())
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
	return errors.Join(errs...)
}

// ConfigError is a setting the service cannot use (a malformed Redis URL):
// the command line's mistake.
type ConfigError struct{ Msg string }

func (e ConfigError) Error() string { return e.Msg }

// DefaultPublicURL is the server's own address as a URL, for a server
// without a public URL: localhost when it listens on every interface.
func DefaultPublicURL(addr net.Addr) string {
	host, port, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// NewChecker is the live checker: through the network guard, with a name
// lookup bounded at 2 s (the system resolver waits 5 s a try without
// network).
func NewChecker(allowPrivate bool, timeout time.Duration, concurrency int, version string) *livecheck.Checker {
	return &livecheck.Checker{Guard: netguard.New(netguard.Options{AllowPrivate: allowPrivate, DialTimeout: timeout, ResolveTimeout: min(DNSTimeout, timeout)}),
		Timeout: timeout, Concurrency: concurrency, Version: version}
}

// DNSTimeout bounds a live check's name lookup.
const DNSTimeout = 2 * time.Second
