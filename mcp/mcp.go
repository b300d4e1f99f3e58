// Package mcp serves the directory's MCP endpoint, /api/open/mcp, on the
// official Go SDK. Every protocol era is served on the one path:
//
//   - 2026-07-28: stateless POSTs (server/discover, no sessions), by the
//     SDK's stateless Streamable HTTP handler;
//   - 2025-03-26, 2025-06-18 and 2025-11-25: Streamable HTTP sessions
//     (initialize, Mcp-Session-Id, GET streams, DELETE), by its stateful one;
//   - 2024-11-05: HTTP+SSE, a GET stream that names the URL to POST to, by
//     its SSE handler.
//
// Around the SDK, this package routes each request to the right handler,
// serves sessionless tool calls itself (post.go: the SDK would connect a
// session for each), authenticates with the API keys REST uses, spends the
// key's budget only on tool calls that run, answers every error as a
// JSON-RPC body with the request's id as sent, checks Origin and Host,
// bounds bodies, batches, answers, sessions and streams per key, and with
// Redis shares sessions between replicas (shared.go). docs/mcp.md
// describes the behaviour a client sees.
package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
)

// Index is the directory the tools read.
type Index interface {
	// Find runs a search with its filter.
	Find(q mcpdir.Query) mcpdir.SearchResult
	// Get returns an entry by its id.
	Get(id string) (*mcpdir.Entry, bool)
	// Generation changes whenever the index does: encoded answers are
	// kept for one generation.
	Generation() uint64
}

// ToolIndex finds tools across the directory's servers (toolsearch.Index).
type ToolIndex interface {
	FindTools(q mcpdir.Query) mcpdir.ToolResult
}

// Config is what the endpoint needs. Zero limits take the defaults below.
type Config struct {
	Index Index
	// Tools, if set, serves search_tools.
	Tools  ToolIndex
	Guard  mcpdir.Guard // the same as REST's: one budget per key
	Logger *slog.Logger // nil: discard

	// AllowedOrigins are the web origins (scheme://host[:port]) whose pages
	// may call the endpoint, besides the server's own; "*" allows any.
	// Requests without an Origin header (every non-browser client) pass.
	AllowedOrigins []string

	ServerName    string // default "mcpdir"
	ServerVersion string // default "dev"

	MaxSessionsPerKey  int           // open sessions of one key, both transports
	MaxStreamsPerKey   int           // open GET streams (and 2026 listens) of one key
	SessionIdleTimeout time.Duration // a session with nothing in flight and no stream ends after this
	KeepAliveInterval  time.Duration // SSE comment on open streams, for proxies and dead peers
	MaxBodyBytes       int64         // a POST body larger than this is refused
	KeyCheckInterval   time.Duration // how often open sessions' keys are checked (revocation, expiry)

	// AnswerCacheBytes bounds the encoded search_mcp and get_mcp_detail
	// answers kept until the index changes (0: none: every answer is
	// encoded anew).
	AnswerCacheBytes int

	// Shared, when set, shares sessions between replicas (Redis): any
	// replica serves any session's requests. Nil keeps them local.
	Shared mcpdir.SharedSessions

	// Observer, if set, counts messages and open streams (metrics).
	Observer Observer

	// Insight, if set, counts searches and refusals (package insight):
	// search_mcp's as the MCP door's, search_tools's as the tools door's.
	Insight mcpdir.InsightRecorder

	// ResourceMetadata, if set, is the URL of the endpoint's OAuth
	// protected-resource metadata (RFC 9728), named in the Bearer
	// challenge of a 401 so that clients can find where to sign in.
	ResourceMetadata string
}

// Defaults of Config's limits.
const (
	DefaultMaxSessionsPerKey  = 16
	DefaultMaxStreamsPerKey   = 8
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultKeepAliveInterval  = 25 * time.Second
	DefaultMaxBodyBytes       = 1 << 20
	DefaultKeyCheckInterval   = time.Second
)

const (
	// modernVersion is the first stateless protocol version (SEP-2575).
	modernVersion = "2026-07-28"
	// noBatchVersion is the first version without JSON-RPC batches.
	noBatchVersion = "2025-06-18"
	// defaultVersion is what the SDK assumes of a request without an
	// MCP-Protocol-Version header.
	defaultVersion = "2025-03-26"

	allowedMethods = "GET, POST, DELETE, OPTIONS"

	instructions = "The Open MCP Directory: find MCP servers for a task with search_mcp (keywords), " +
		"then call get_mcp_detail with an id from the results to learn how to install or connect to one; " +
		"find a single tool (one operation a server offers) with search_tools (keywords). " +
		"Every tool call counts against the API key's hourly budget."
)

// Handler serves /api/open/mcp. Close it on shutdown: it ends open sessions
// and streams, which would otherwise hold http.Server.Shutdown until its
// deadline.
type Handler struct {
	cfg      Config
	log      *slog.Logger
	origins  origins
	versions []string

	server    *sdk.Server
	stateful  http.Handler
	stateless http.Handler
	legacy    http.Handler
	tools     *tools
	counters  *messageCounters
	// direct answers the common calls without the SDK (direct.go), with
	// the SDK's tools/list answers; tests turn it off to compare.
	direct   bool
	lists    toolLists
	sessions *registry
	tickets  *ticketBox

	closing   chan struct{}
	swept     chan struct{} // closed when the janitor has stopped
	closeOnce sync.Once
}

// NewHandler returns the endpoint's handler, mounted by the caller at
// /api/open/mcp (the path must not be stripped: the legacy transport tells
// clients where to POST by echoing the request path).
func NewHandler(cfg Config) (*Handler, error) {
	if cfg.Index == nil || cfg.Guard == nil {
		return nil, errors.New("mcp: Config needs an Index and a Guard")
	}
	allowed, err := newOrigins(cfg.AllowedOrigins)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	cfg.ServerName = cmp.Or(cfg.ServerName, "mcpdir")
	cfg.ServerVersion = cmp.Or(cfg.ServerVersion, "dev")
	cfg.MaxSessionsPerKey = cmp.Or(cfg.MaxSessionsPerKey, DefaultMaxSessionsPerKey)
	cfg.MaxStreamsPerKey = cmp.Or(cfg.MaxStreamsPerKey, DefaultMaxStreamsPerKey)
	cfg.SessionIdleTimeout = cmp.Or(cfg.SessionIdleTimeout, DefaultSessionIdleTimeout)
	cfg.KeepAliveInterval = cmp.Or(cfg.KeepAliveInterval, DefaultKeepAliveInterval)
	cfg.MaxBodyBytes = cmp.Or(cfg.MaxBodyBytes, DefaultMaxBodyBytes)
	cfg.KeyCheckInterval = cmp.Or(cfg.KeyCheckInterval, DefaultKeyCheckInterval)
	if cfg.Observer == nil {
		cfg.Observer = noObserver{}
	}
	if cfg.Insight == nil {
		cfg.Insight = mcpdir.NoInsight
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sdkLog := slog.New(quietHandler{log.Handler()})

	server := sdk.NewServer(&sdk.Implementation{
		Name: cfg.ServerName, Title: "Open MCP Directory", Version: cfg.ServerVersion,
	}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLog,
		// Logging stays advertised (the SDK's default) for the clients that
		// set a level; the tool list never changes.
		Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Tools: &sdk.ToolCapabilities{}},
	})
	h := &Handler{
		cfg: cfg, log: log, origins: allowed, versions: sdk.SupportedProtocolVersions(),
		server:   server,
		sessions: newRegistry(cfg.MaxSessionsPerKey, cfg.MaxStreamsPerKey, cfg.SessionIdleTimeout),
		tickets:  newTicketBox(),
		counters: newMessageCounters(cfg.Observer),
		closing:  make(chan struct{}),
		swept:    make(chan struct{}),
	}
	h.tools = newTools(cfg.Index, log, cfg.AnswerCacheBytes)
	h.tools.toolIndex = cfg.Tools
	h.tools.insight = cfg.Insight
	h.tools.register(server, h.sdkTool)

	getServer := func(*http.Request) *sdk.Server { return server }
	// The SDK keeps its own body bound and DNS-rebinding check; sessions end
	// through the registry's idle timeout, which knows about open streams.
	opts := sdk.StreamableHTTPOptions{Logger: sdkLog, MaxRequestBodyBytes: cfg.MaxBodyBytes}
	h.stateful = sdk.NewStreamableHTTPHandler(getServer, &opts)
	opts.Stateless = true
	h.stateless = sdk.NewStreamableHTTPHandler(getServer, &opts)
	h.legacy = sdk.NewSSEHandler(getServer, &sdk.SSEOptions{MaxRequestBodyBytes: cfg.MaxBodyBytes})
	if h.lists, err = captureLists(h.stateless); err != nil {
		return nil, err
	}
	h.direct = true

	go h.janitor(min(max(cfg.SessionIdleTimeout/4, 10*time.Millisecond), time.Minute))
	if cfg.Shared != nil {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-h.closing; cancel() }()
		go cfg.Shared.Listen(ctx, h.deliverLegacy)
	}
	return h, nil
}

// AnswerLookups returns how many search_mcp and get_mcp_detail calls were
// answered from the answers kept encoded, and how many were not.
func (h *Handler) AnswerLookups() (hits, misses uint64) { return h.tools.answers.Lookups() }

// Close ends every session and stream. The handler refuses requests after.
func (h *Handler) Close() {
	h.closeOnce.Do(func() {
		close(h.closing)
		<-h.swept
		h.closeSessions(h.sessions.all())
		for ss := range h.server.Sessions() {
			ss.Close()
		}
	})
}

func (h *Handler) janitor(every time.Duration) {
	defer close(h.swept)
	t := time.NewTicker(every)
	defer t.Stop()
	keys := time.NewTicker(h.cfg.KeyCheckInterval)
	defer keys.Stop()
	for {
		select {
		case <-h.closing:
			return
		case <-t.C:
			h.sweep()
		case <-keys.C:
			// A revoked or expired key's sessions end, and with them
			// their open streams.
			h.closeSessions(h.sessions.unusable(h.cfg.Guard.Check))
			h.syncShared()
		}
	}
}

// sweep ends idle sessions, forgets the ones the SDK ended by itself, and
// drops unredeemed tickets.
func (h *Handler) sweep() {
	h.tickets.sweep()
	h.closeSessions(h.sessions.expire())
	snapshot := time.Now()
	live := map[string]bool{}
	for ss := range h.server.Sessions() {
		live[ss.ID()] = true
	}
	h.sessions.drop(live, snapshot)
}

func (h *Handler) closeSessions(list []*session) {
	if len(list) == 0 {
		return
	}
	byID := map[string]*sdk.ServerSession{}
	for ss := range h.server.Sessions() {
		byID[ss.ID()] = ss
	}
	for _, s := range list {
		if s.legacy {
			s.cancel()
		} else if ss := byID[s.id]; ss != nil {
			ss.Close()
		}
	}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			h.log.ErrorContext(r.Context(), "mcp: panic", "panic", v, "stack", string(debug.Stack()))
			writeRPCError(w, http.StatusInternalServerError, nil, rpcError{Code: codeInternal, Message: "internal error", Data: rpcData{Code: mcpdir.ECodeInternal}})
		}
	}()
	origin := r.Header.Get("Origin")
	if !h.origins.allows(origin, r.Host) {
		writeRPCError(w, http.StatusForbidden, nil, rpcError{Code: codeForbidden,
			Message: fmt.Sprintf("web pages of origin %q may not call this endpoint: ask the operator to allow the origin", clip(origin, 100)),
			Data:    rpcData{Code: mcpdir.ECodeForbidden}})
		return
	}
	if origin != "" {
		setCORS(w.Header(), origin)
	}
	if r.Method == http.MethodOptions {
		preflight(w, r)
		return
	}
	if rebinding(r) {
		writeRPCError(w, http.StatusForbidden, nil, rpcError{Code: codeForbidden,
			Message: fmt.Sprintf("Host %q is not a name of this server (DNS rebinding is refused): connect to localhost or 127.0.0.1", clip(r.Host, 100)),
			Data:    rpcData{Code: mcpdir.ECodeForbidden}})
		return
	}
	select {
	case <-h.closing:
		writeRPCError(w, http.StatusServiceUnavailable, nil, rpcError{Code: codeInternal,
			Message: "the server is shutting down: reconnect in a moment", Data: rpcData{Code: mcpdir.ECodeUnavailable}})
		return
	default:
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPost && r.Method != http.MethodDelete {
		w.Header().Set("Allow", allowedMethods)
		writeRPCError(w, http.StatusMethodNotAllowed, nil, rpcError{Code: codeTransport,
			Message: "use POST for JSON-RPC messages, GET for an event stream, DELETE to end a session",
			Data:    rpcData{Code: mcpdir.ECodeMethodNotAllowed}})
		return
	}
	key, err := h.cfg.Guard.Authenticate(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		h.refuse(w, r, err)
		return
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if version != "" && !slices.Contains(h.versions, version) {
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeUnsupportedVer,
			Message: fmt.Sprintf("protocol version %q is not supported: use one of %s", clip(version, 40), strings.Join(h.versions, ", ")),
			Data:    rpcData{Code: dataUnsupportedVersion, Supported: h.versions, Requested: version}})
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r, key, version)
	case http.MethodGet:
		h.get(w, r, key, version)
	case http.MethodDelete:
		h.delete(w, r, key, version)
	}
}

// refuse answers a failed authentication: 401 with a Bearer challenge for
// a key problem, without detail for anything else.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if mcpdir.RefusedForKey(err) {
		h.cfg.Insight.Refused(mcpdir.DoorMCP)
	}
	code, msg := mcpdir.ErrorCode(err), mcpdir.ErrorMessage(err)
	challenge := `Bearer realm="mcpdir"`
	if h.cfg.ResourceMetadata != "" {
		challenge += fmt.Sprintf(`, resource_metadata=%q`, h.cfg.ResourceMetadata)
	}
	switch code {
	case mcpdir.ECodeMissingKey:
		w.Header().Set("WWW-Authenticate", challenge)
		writeRPCError(w, http.StatusUnauthorized, nil, rpcError{Code: codeUnauthorized, Message: msg, Data: rpcData{Code: code}})
	case mcpdir.ECodeInvalidKey, mcpdir.ECodeExpiredKey, mcpdir.ECodeRevokedKey:
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`%s, error="invalid_token", error_description=%q`, challenge, msg))
		writeRPCError(w, http.StatusUnauthorized, nil, rpcError{Code: codeUnauthorized, Message: msg, Data: rpcData{Code: code}})
	case mcpdir.ECodeForbidden:
		writeRPCError(w, http.StatusForbidden, nil, rpcError{Code: codeForbidden, Message: msg, Data: rpcData{Code: code}})
	case mcpdir.ECodeUnavailable:
		h.log.WarnContext(r.Context(), "mcp: authenticate", "err", err)
		writeRPCError(w, http.StatusServiceUnavailable, nil, rpcError{Code: codeInternal, Message: msg, Data: rpcData{Code: code}})
	default:
		h.log.ErrorContext(r.Context(), "mcp: authenticate", "err", err)
		writeRPCError(w, http.StatusInternalServerError, nil, rpcError{Code: codeInternal, Message: "internal error", Data: rpcData{Code: mcpdir.ECodeInternal}})
	}
}

// sdkTool is the tools' handler on the SDK's paths: it redeems the call's
// ticket for the key and the receipt of the request that carried it.
func (h *Handler) sdkTool(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	id, _ := req.Params.Meta[ticketMeta].(string)
	tk, ok := h.tickets.redeem(id)
	if !ok {
		// Every call of a directory tool through the endpoint gets a
		// ticket; one without could only come from a path that skipped it.
		h.log.ErrorContext(ctx, "mcp: tool call without a budget ticket", "tool", req.Params.Name)
		return nil, errPanic
	}
	out, err := h.tools.call(ctx, h.cfg.Guard, tk.key, req.Params.Name, req.Params.Arguments, tk.receipt.record)
	if err != nil {
		return nil, err
	}
	return out.sdkResult(), nil
}
