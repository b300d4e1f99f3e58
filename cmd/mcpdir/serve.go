package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/changefeed"
	mcpdirhttp "github.com/mcpdir/mcpdir/http"
	"github.com/mcpdir/mcpdir/mcp"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/sqlite"
	"github.com/mcpdir/mcpdir/starter"
)

// clock is the time the rate limiter counts by; tests move it.
var clock = time.Now

// serveConfig is every setting of mcpdir serve.
type serveConfig struct {
	addr           string
	dataDir        string
	noStarter      bool
	maxResults     int
	feedInterval   time.Duration
	logLevel       string
	baseline       bool
	allowedOrigins []string
	timeouts       mcpdirhttp.Timeouts
}

func serve(ctx context.Context, args []string, env envLookup, stdout, stderr io.Writer) error {
	fs, dataDir := newFlags("serve", env, stderr)
	var cfg serveConfig
	fs.StringVar(&cfg.addr, "addr", env.or("MCPDIR_ADDR", "127.0.0.1:8080"), "address to listen on (env MCPDIR_ADDR)")
	fs.BoolVar(&cfg.noStarter, "no-starter", env("MCPDIR_NO_STARTER") == "1" || env("MCPDIR_NO_STARTER") == "true", "do not load the starter directory into an empty store (env MCPDIR_NO_STARTER=1)")
	maxResults, err := strconv.Atoi(env.or("MCPDIR_MAX_RESULTS", "50"))
	if err != nil {
		return usageError{"MCPDIR_MAX_RESULTS must be a number"}
	}
	fs.IntVar(&cfg.maxResults, "max-results", maxResults, "results a REST search returns, 1..1000 (env MCPDIR_MAX_RESULTS)")
	fs.DurationVar(&cfg.feedInterval, "feed-interval", 250*time.Millisecond, "how often to look for writes by other processes")
	origins := fs.String("allowed-origins", env("MCPDIR_ALLOWED_ORIGINS"), "comma-separated browser origins allowed to call the MCP endpoint, or * (env MCPDIR_ALLOWED_ORIGINS)")
	fs.BoolVar(&cfg.baseline, "bench-baseline", false, "mount GET /debug/baseline, a precomputed body for load benchmarks")
	fs.DurationVar(&cfg.timeouts.Header, "header-timeout", mcpdirhttp.DefaultTimeouts.Header, "time a client has to send a request's headers")
	fs.DurationVar(&cfg.timeouts.Request, "request-timeout", mcpdirhttp.DefaultTimeouts.Request, "time a client has to send a request's body and take the answer (event streams excepted)")
	fs.DurationVar(&cfg.timeouts.Idle, "idle-timeout", mcpdirhttp.DefaultTimeouts.Idle, "a keep-alive connection idle this long is closed")
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
	cfg.dataDir = *dataDir
	for _, o := range strings.Split(*origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.allowedOrigins = append(cfg.allowedOrigins, o)
		}
	}
	return runServer(ctx, cfg, stderr)
}

func runServer(ctx context.Context, cfg serveConfig, stderr io.Writer) error {
	logger := newLogger(stderr, cfg.logLevel)
	store, err := sqlite.Open(ctx, cfg.dataDir)
	if err != nil {
		return err
	}
	defer store.Close()

	if err := loadStarter(ctx, store, cfg.noStarter, logger); err != nil {
		return err
	}
	// Read the feed position before loading, so that a write landing during
	// the load is applied again afterwards rather than missed.
	seq, err := store.LatestChange(ctx)
	if err != nil {
		return err
	}
	index := search.New()
	start := time.Now()
	if err := loadIndex(ctx, store, index); err != nil {
		return err
	}
	logger.Info("index built", "entries", index.Len(), "took", time.Since(start).Round(time.Millisecond))

	limiter := memory.NewLimiter(clock)
	guard := auth.New(store, limiter, logger)
	if err := guard.Load(ctx); err != nil {
		return err
	}

	mcpHandler, err := mcp.NewHandler(mcp.Config{
		Index:          index,
		Guard:          guard,
		Logger:         logger,
		AllowedOrigins: cfg.allowedOrigins,
		ServerVersion:  version,
	})
	if err != nil {
		return err
	}
	defer mcpHandler.Close()

	var ready atomic.Bool
	handler := mcpdirhttp.NewServer(mcpdirhttp.Config{
		Logger:     logger,
		Index:      index,
		Guard:      guard,
		MaxResults: cfg.maxResults,
		Baseline:   cfg.baseline,
		Timeouts:   cfg.timeouts,
		MCP:        mcpHandler,
		Ready: func(ctx context.Context) error {
			if !ready.Load() {
				return errors.New("starting")
			}
			return store.Ping(ctx)
		},
	})

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.addr, err)
	}
	srv := mcpdirhttp.NewHTTPServer(handler, cfg.timeouts, slogErrorLog(logger))
	// Open event streams would otherwise hold Shutdown until its deadline.
	srv.RegisterOnShutdown(mcpHandler.Close)

	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		changefeed.Follow(bg, store, seq, cfg.feedInterval, applyChanges(store, index, guard), logger)
	})
	wg.Go(func() { guard.RunFlusher(bg, 5*time.Second) })
	wg.Go(func() { sweepLimiter(bg, limiter) })

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	ready.Store(true)
	logger.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(), "data_dir", cfg.dataDir)
	if keys, err := store.Keys(ctx); err == nil && len(keys) == 0 {
		logger.Info("no API key exists yet: make one with `mcpdir keys create --name NAME --data-dir " + cfg.dataDir + "`")
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

// loadStarter fills an empty store with the starter directory.
func loadStarter(ctx context.Context, store *sqlite.DB, skip bool, logger interface{ Info(string, ...any) }) error {
	n, err := store.CountEntries(ctx)
	if err != nil || n > 0 || skip {
		return err
	}
	entries, err := starter.Entries()
	if err != nil {
		return fmt.Errorf("starter directory: %w", err)
	}
	res, err := store.UpsertEntries(ctx, entries)
	if err != nil {
		return fmt.Errorf("load starter directory: %w", err)
	}
	logger.Info("loaded the starter directory into the empty store", "entries", res.Added)
	return nil
}

func loadIndex(ctx context.Context, store mcpdir.EntryStore, index mcpdir.SearchIndex) error {
	var all []*mcpdir.Entry
	if err := store.AllEntries(ctx, func(e *mcpdir.Entry) error { all = append(all, e); return nil }); err != nil {
		return fmt.Errorf("build index: %w", err)
	}
	index.Upsert(all...)
	return nil
}

// applyChanges brings the index and the key cache up to date with writes
// made elsewhere.
func applyChanges(store mcpdir.EntryStore, index mcpdir.SearchIndex, guard *auth.Service) changefeed.Apply {
	return func(ctx context.Context, changes []mcpdir.Change) error {
		var entryIDs, keyPrefixes []string
		seen := map[string]bool{}
		for _, c := range changes {
			if seen[c.Kind+c.Ref] {
				continue
			}
			seen[c.Kind+c.Ref] = true
			switch c.Kind {
			case mcpdir.ChangeEntry:
				entryIDs = append(entryIDs, c.Ref)
			case mcpdir.ChangeKey:
				keyPrefixes = append(keyPrefixes, c.Ref)
			}
		}
		if len(entryIDs) > 0 {
			entries, err := store.EntriesByID(ctx, entryIDs)
			if err != nil {
				return err
			}
			index.Upsert(entries...)
			found := make(map[string]bool, len(entries))
			for _, e := range entries {
				found[e.ID] = true
			}
			var gone []string
			for _, id := range entryIDs {
				if !found[id] {
					gone = append(gone, id)
				}
			}
			index.Remove(gone...)
		}
		return guard.Refresh(ctx, keyPrefixes)
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
