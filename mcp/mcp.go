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
// authenticates it with the API keys REST uses, spends the key's budget on
// tools/call only, answers every error as a JSON-RPC body, checks Origin and
// Host, and bounds bodies, sessions and streams per key. docs/mcp.md
// describes the behaviour a client sees.
package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	mcphttp "github.com/mcpdir/mcpdir/http"
)

// Index is the directory the tools read.
type Index interface {
	// Search returns the best limit hits for the free-text query.
	Search(query string, limit int) mcpdir.SearchResult
	// Get returns an entry by its id.
	Get(id string) (*mcpdir.Entry, bool)
}

// Guard authenticates requests and spends budgets, as it does for REST, so
// that a key has one budget across both interfaces.
type Guard interface {
	// Authenticate takes the raw Authorization header value, "Bearer <key>"
	// or the bare key, and returns the key or one of mcpdir.ErrMissingKey,
	// ErrInvalidKey, ErrExpiredKey, ErrRevokedKey.
	Authenticate(ctx context.Context, authorization string) (*mcpdir.APIKey, error)
	// Spend counts one request against the key's budget.
	Spend(ctx context.Context, key *mcpdir.APIKey) (mcpdir.RateDecision, error)
}

// Config is what the endpoint needs. Zero limits take the defaults below.
type Config struct {
	Index  Index
	Guard  Guard
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
}

// Defaults of Config's limits.
const (
	DefaultMaxSessionsPerKey  = 16
	DefaultMaxStreamsPerKey   = 8
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultKeepAliveInterval  = 25 * time.Second
	DefaultMaxBodyBytes       = 1 << 20
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
		"then call get_mcp_detail with an id from the results to learn how to install or connect to one. " +
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
	sessions  *registry
	tickets   *ticketBox

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
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	server := sdk.NewServer(&sdk.Implementation{
		Name: cfg.ServerName, Title: "Open MCP Directory", Version: cfg.ServerVersion,
	}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		// Logging stays advertised (the SDK's default) for the clients that
		// set a level; the tool list never changes.
		Capabilities: &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Tools: &sdk.ToolCapabilities{}},
	})
	h := &Handler{
		cfg: cfg, log: log, origins: allowed, versions: sdk.SupportedProtocolVersions(),
		server:   server,
		sessions: newRegistry(cfg.MaxSessionsPerKey, cfg.MaxStreamsPerKey, cfg.SessionIdleTimeout),
		tickets:  newTicketBox(),
		closing:  make(chan struct{}),
		swept:    make(chan struct{}),
	}
	(&tools{index: cfg.Index, tickets: h.tickets, log: log, now: time.Now}).register(server)

	getServer := func(*http.Request) *sdk.Server { return server }
	// The SDK keeps its own body bound and DNS-rebinding check; sessions end
	// through the registry's idle timeout, which knows about open streams.
	opts := sdk.StreamableHTTPOptions{Logger: log, MaxRequestBodyBytes: cfg.MaxBodyBytes}
	h.stateful = sdk.NewStreamableHTTPHandler(getServer, &opts)
	opts.Stateless = true
	h.stateless = sdk.NewStreamableHTTPHandler(getServer, &opts)
	h.legacy = sdk.NewSSEHandler(getServer, &sdk.SSEOptions{MaxRequestBodyBytes: cfg.MaxBodyBytes})

	go h.janitor(min(max(cfg.SessionIdleTimeout/4, 10*time.Millisecond), time.Minute))
	return h, nil
}

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
	for {
		select {
		case <-h.closing:
			return
		case <-t.C:
			h.sweep()
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
	code, msg := mcpdir.ErrorCode(err), mcpdir.ErrorMessage(err)
	switch code {
	case mcpdir.ECodeMissingKey:
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpdir"`)
		writeRPCError(w, http.StatusUnauthorized, nil, rpcError{Code: codeUnauthorized, Message: msg, Data: rpcData{Code: code}})
	case mcpdir.ECodeInvalidKey, mcpdir.ECodeExpiredKey, mcpdir.ECodeRevokedKey:
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="mcpdir", error="invalid_token", error_description=%q`, msg))
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

// post routes a POST: to the legacy session its URL names, to the
// stateless handler for the 2026-07-28 era, to the session its
// Mcp-Session-Id names, to a new session for initialize, and otherwise to
// the stateless handler, which serves a sessionless request of any era.
func (h *Handler) post(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, version string) {
	if mediaType(r.Header.Get("Content-Type")) != "application/json" {
		writeRPCError(w, http.StatusUnsupportedMediaType, nil, rpcError{Code: codeTransport,
			Message: "send JSON-RPC messages with Content-Type: application/json", Data: rpcData{Code: dataUnsupportedMedia}})
		return
	}
	legacyID := r.URL.Query().Get("sessionid")
	jsonOK, wantsSSE := accepts(r.Header.Values("Accept"))
	if legacyID == "" && !jsonOK && !wantsSSE {
		writeRPCError(w, http.StatusNotAcceptable, nil, rpcError{Code: codeTransport,
			Message: "answers are application/json or text/event-stream: accept one of them", Data: rpcData{Code: dataNotAcceptable}})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcError{Code: codeTransport,
				Message: fmt.Sprintf("the body is larger than %d bytes", h.cfg.MaxBodyBytes), Data: rpcData{Code: mcpdir.ECodeTooLarge}})
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeTransport,
			Message: "the body could not be read", Data: rpcData{Code: mcpdir.ECodeInvalidRequest}})
		return
	}
	msgs, batch, perr := parseBody(body)
	if perr != nil {
		writeRPCError(w, perr.resp, perr.id, perr.err)
		return
	}
	var id json.RawMessage
	if !batch {
		id = msgs[0].id
	}
	modern := version >= modernVersion || version == "" && msgs[0].metaVersion() >= modernVersion
	sessionID := r.Header.Get("Mcp-Session-Id")

	var handler http.Handler
	switch {
	case legacyID != "":
		handler = h.legacy
	case modern:
		handler = h.stateless
	case sessionID != "":
		handler = h.stateful
	case !batch && msgs[0].method == "initialize":
		handler = h.stateful
	default:
		handler = h.stateless
	}

	if batch && (legacyID != "" || cmp.Or(version, defaultVersion) >= noBatchVersion) {
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeInvalidRequest,
			Message: fmt.Sprintf("JSON-RPC batches are not supported in protocol version %s on this transport: send one message per POST", cmp.Or(version, defaultVersion)),
			Data:    rpcData{Code: dataBatchNotSupported}})
		return
	}

	// The session comes before the messages: a client must learn first that
	// its session is gone.
	var sess *session
	var res *reservation
	switch {
	case legacyID != "":
		if sess = h.acquire(w, id, legacyID, key, true); sess == nil {
			return
		}
		defer h.sessions.done(sess)
	case handler == h.stateful && sessionID != "":
		if sess = h.acquire(w, id, sessionID, key, false); sess == nil {
			return
		}
		defer h.sessions.done(sess)
	case handler == h.stateful:
		if res = h.reserve(w, id, key); res == nil {
			return
		}
		defer res.release()
	}

	if m := msgs[0]; !batch && m.method != "" && m.id == nil {
		if _, known := knownMethods[m.method]; !known {
			// An unknown notification is dropped, as JSON-RPC wants.
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	if h.checkMethods(w, msgs, modern) {
		return
	}

	if body, err = h.spend(w, r, key, msgs, batch, body); err != nil {
		h.log.ErrorContext(r.Context(), "mcp: attach budget ticket", "err", err)
		writeRPCError(w, http.StatusInternalServerError, id, rpcError{Code: codeInternal, Message: "internal error", Data: rpcData{Code: mcpdir.ECodeInternal}})
		return
	}

	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	// The SDK insists on both; what this client accepts is honoured by the
	// writer instead.
	r.Header.Set("Accept", "application/json, text/event-stream")

	sw := newSDKWriter(w)
	sw.id, sw.batch = id, batch
	sw.toJSON = legacyID == "" && !wantsSSE
	var born *session
	if res != nil {
		sw.onHeader = func(status int, hdr http.Header) {
			if sid := hdr.Get("Mcp-Session-Id"); status == http.StatusOK && sid != "" {
				born = res.commit(sid, false, nil)
			}
		}
	}
	handler.ServeHTTP(sw, r)
	sw.finish()
	if born != nil {
		h.sessions.done(born)
	}
	if sess != nil && sw.statusCode() == http.StatusNotFound {
		h.sessions.remove(sess.id) // the SDK no longer has it
	}
}

// reserve holds a place for a new session of the key, closing the session
// it evicts to make room, or answers 429 when all the key's sessions are
// busy.
func (h *Handler) reserve(w http.ResponseWriter, id json.RawMessage, key *mcpdir.APIKey) *reservation {
	res, evicted, ok := h.sessions.reserve(key.Prefix)
	if !ok {
		h.tooMany(w, id, dataTooManySessions, fmt.Sprintf(
			"this API key has %d MCP sessions in use, the most it may have: end unused ones (DELETE, or close their event streams)",
			h.cfg.MaxSessionsPerKey))
		return nil
	}
	if evicted != nil {
		h.closeSessions([]*session{evicted})
	}
	return res
}

// acquire finds the key's session for a request, or answers 404.
func (h *Handler) acquire(w http.ResponseWriter, id json.RawMessage, sessionID string, key *mcpdir.APIKey, legacy bool) *session {
	s, ok := h.sessions.acquire(sessionID, key.Prefix, legacy)
	if !ok {
		how := "start a new one with initialize"
		if legacy {
			how = "open a new event stream with GET"
		}
		writeRPCError(w, http.StatusNotFound, id, rpcError{Code: codeSessionNotFound,
			Message: "session not found: it ended or expired, or belongs to another API key; " + how,
			Data:    rpcData{Code: dataSessionNotFound}})
	}
	return s
}

// checkMethods refuses what the SDK would answer with plain text: unknown
// methods, notifications with ids, requests without, missing params. It
// reports whether it answered.
func (h *Handler) checkMethods(w http.ResponseWriter, msgs []*message, modern bool) bool {
	// A JSON-RPC error about a well-formed request is an ordinary answer
	// (200) before 2026-07-28, which maps it to an HTTP status. A 404 would
	// tell a session client its session is gone.
	status := func(code int) int {
		switch {
		case !modern:
			return http.StatusOK
		case code == codeMethodNotFound:
			return http.StatusNotFound
		}
		return http.StatusBadRequest
	}
	for _, m := range msgs {
		if m.method == "" {
			continue // a response to the server
		}
		rule, known := knownMethods[m.method]
		switch {
		case !known:
			writeRPCError(w, status(codeMethodNotFound), m.id, rpcError{Code: codeMethodNotFound,
				Message: fmt.Sprintf("method %q is not supported: this server offers tools (tools/list, tools/call)", clip(m.method, 60)),
				Data:    rpcData{Code: dataMethodNotFound}})
		case rule.notification && m.id != nil:
			writeRPCError(w, http.StatusBadRequest, m.id, rpcError{Code: codeInvalidRequest,
				Message: fmt.Sprintf("%s is a notification: send it without an id", m.method), Data: rpcData{Code: mcpdir.ECodeInvalidRequest}})
		case !rule.notification && m.id == nil:
			writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeInvalidRequest,
				Message: fmt.Sprintf("%s is a request: give it an id", m.method), Data: rpcData{Code: mcpdir.ECodeInvalidRequest}})
		case rule.needsParams && m.params == nil:
			writeRPCError(w, status(codeInvalidParams), m.id, rpcError{Code: codeInvalidParams,
				Message: fmt.Sprintf("%s needs params", m.method), Data: rpcData{Code: mcpdir.ECodeInvalidRequest}})
		default:
			continue
		}
		return true
	}
	return false
}

// spend counts each call of a directory tool against the key's budget,
// puts its decision's ticket in the call, and sets the rate-limit headers
// of the last decision. It returns the body to hand the SDK.
func (h *Handler) spend(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, msgs []*message, batch bool, body []byte) ([]byte, error) {
	var last *mcpdir.RateDecision
	changed := false
	for _, m := range msgs {
		if m.method != "tools/call" || !m.isCall() {
			continue
		}
		if name := m.toolName(); name != toolSearch && name != toolDetail {
			continue // the SDK answers an unknown tool, for free
		}
		meta, ok := callMeta(m)
		if !ok {
			continue
		}
		d, err := h.cfg.Guard.Spend(r.Context(), key)
		if err == nil {
			last = &d
		}
		if err := attach(m, meta, h.tickets.issue(d, err)); err != nil {
			return nil, err
		}
		changed = true
	}
	if last != nil {
		mcphttp.SetRateLimitHeaders(w.Header(), *last)
	}
	if !changed {
		return body, nil
	}
	return encodeBody(msgs, batch)
}

// get opens an event stream: a session's standalone stream when the
// request names a session, else a new legacy (2024-11-05) session.
func (h *Handler) get(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, version string) {
	if _, wantsSSE := accepts(r.Header.Values("Accept")); !wantsSSE {
		writeRPCError(w, http.StatusNotAcceptable, nil, rpcError{Code: codeTransport,
			Message: "GET opens an event stream: send Accept: text/event-stream (JSON-RPC messages go by POST)", Data: rpcData{Code: dataNotAcceptable}})
		return
	}
	if version >= modernVersion {
		w.Header().Set("Allow", "POST")
		writeRPCError(w, http.StatusMethodNotAllowed, nil, rpcError{Code: codeTransport,
			Message: "protocol version " + version + " has no GET stream: POST subscriptions/listen for notifications", Data: rpcData{Code: mcpdir.ECodeMethodNotAllowed}})
		return
	}
	if sessionID := r.Header.Get("Mcp-Session-Id"); sessionID != "" {
		s := h.acquire(w, nil, sessionID, key, false)
		if s == nil {
			return
		}
		defer h.sessions.done(s)
		if !h.sessions.openStream(key.Prefix) {
			h.tooManyStreams(w, nil)
			return
		}
		defer h.sessions.closeStream(key.Prefix)
		sw := newSDKWriter(w)
		h.stream(sw, r, h.stateful)
		if sw.statusCode() == http.StatusNotFound {
			h.sessions.remove(sessionID)
		}
		return
	}

	res := h.reserve(w, nil, key)
	if res == nil {
		return
	}
	defer res.release()
	if !h.sessions.openStream(key.Prefix) {
		h.tooManyStreams(w, nil)
		return
	}
	defer h.sessions.closeStream(key.Prefix)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sw := newSDKWriter(w)
	var legacy *session
	// The SDK names the session only in the endpoint event, its first
	// write; the session must be known before the client can POST to it.
	sw.onData = func(p []byte) {
		if legacy == nil {
			if id := endpointSession(p); id != "" {
				legacy = res.commit(id, true, cancel)
			}
		}
	}
	h.stream(sw, r.WithContext(ctx), h.legacy)
	if legacy != nil {
		h.sessions.remove(legacy.id)
	}
}

// endpointSession reads the session id out of the legacy endpoint event.
func endpointSession(p []byte) string {
	for line := range strings.SplitSeq(string(p), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if u, err := url.Parse(strings.TrimSpace(data)); err == nil {
				return u.Query().Get("sessionid")
			}
		}
	}
	return ""
}

// stream serves a long-lived event stream, with keep-alive comments and no
// write deadline.
func (h *Handler) stream(sw *sdkWriter, r *http.Request, handler http.Handler) {
	// Best effort: a server without a write timeout has nothing to lift.
	_ = http.NewResponseController(sw.w).SetWriteDeadline(time.Time{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { sw.keepAlive(h.cfg.KeepAliveInterval, stop) })
	handler.ServeHTTP(sw, r)
	close(stop)
	wg.Wait()
	sw.finish()
}

// delete ends a Streamable HTTP session.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, version string) {
	if version >= modernVersion {
		w.Header().Set("Allow", "POST")
		writeRPCError(w, http.StatusMethodNotAllowed, nil, rpcError{Code: codeTransport,
			Message: "protocol version " + version + " has no sessions to end", Data: rpcData{Code: mcpdir.ECodeMethodNotAllowed}})
		return
	}
	sessionID := r.Header.Get("Mcp-Session-Id")
	if sessionID == "" {
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeTransport,
			Message: "DELETE ends a session: send its Mcp-Session-Id header", Data: rpcData{Code: dataSessionRequired}})
		return
	}
	s := h.acquire(w, nil, sessionID, key, false)
	if s == nil {
		return
	}
	sw := newSDKWriter(w)
	h.stateful.ServeHTTP(sw, r)
	sw.finish()
	h.sessions.done(s)
	if st := sw.statusCode(); st == http.StatusNoContent || st == http.StatusNotFound {
		h.sessions.remove(sessionID)
	}
}

func (h *Handler) tooMany(w http.ResponseWriter, id json.RawMessage, code, msg string) {
	w.Header().Set("Retry-After", "60")
	writeRPCError(w, http.StatusTooManyRequests, id, rpcError{Code: codeLimitExceeded, Message: msg, Data: rpcData{Code: code}})
}

func (h *Handler) tooManyStreams(w http.ResponseWriter, id json.RawMessage) {
	h.tooMany(w, id, dataTooManyStreams, fmt.Sprintf(
		"this API key has %d open event streams, the most it may have: close one first", h.cfg.MaxStreamsPerKey))
}

// accepts reads an Accept header: whether a JSON answer is acceptable, and
// whether the client asks for event streams by name. No header, or */*,
// accepts JSON: the simplest answer for curl and plain HTTP clients.
func accepts(values []string) (jsonOK, wantsSSE bool) {
	other := false
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			base, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*", "*/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				wantsSSE = true
			case "":
			default:
				other = true
			}
		}
	}
	if !jsonOK && !wantsSSE && !other {
		jsonOK = true // no Accept header at all
	}
	return jsonOK, wantsSSE
}

func mediaType(v string) string {
	t, _, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	return t
}
