// Package http is the directory's HTTP interface: the REST search API, the
// health checks, and the mount point of the MCP endpoint.
package http

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpdir/mcpdir"
)

// Searcher answers ranked searches.
type Searcher interface {
	Search(query string, limit int) mcpdir.SearchResult
}

// Config is what the HTTP interface needs.
type Config struct {
	Logger *slog.Logger
	Index  Searcher
	Guard  mcpdir.Guard
	// MaxResults is how many hits a REST search returns (the spec has no
	// limit parameter).
	MaxResults int
	// MCP serves /api/open/mcp; nil leaves it unmounted.
	MCP http.Handler
	// Ready reports whether the store and index are ready to serve.
	Ready func(ctx context.Context) error
	// Baseline mounts GET /debug/baseline?bytes=N, which answers a
	// precomputed body of N bytes: the physical limit that load benchmarks
	// compare search throughput with, measured in the same server.
	Baseline bool
}

// Input bounds.
const (
	MaxURLBytes  = 8 << 10
	MaxBodyBytes = 1 << 20
)

// NewServer returns the whole HTTP surface with its middleware.
func NewServer(cfg Config) http.Handler {
	if cfg.MaxResults <= 0 {
		cfg.MaxResults = 50
	}
	mux := http.NewServeMux()
	addRoutes(mux, cfg)
	var h http.Handler = mux
	h = boundRequest(h)
	h = recoverPanics(cfg.Logger, h)
	return h
}
