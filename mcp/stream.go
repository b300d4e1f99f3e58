package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
)

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
		s := h.acquire(sessionID, key, false)
		if s == nil {
			if h.remoteSession(w, r, nil, sessionID, key, false) {
				h.remoteStream(w, r, sessionID, key)
			}
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
				h.share(r.Context(), id, key, true)
			}
		}
	}
	h.stream(sw, r.WithContext(ctx), h.legacy)
	if legacy != nil {
		h.sessions.remove(legacy.id)
		h.unshare(r.Context(), legacy.id)
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
	// A stream outlives the request deadlines the server sets: lift them
	// (best effort: a writer without deadlines has nothing to lift). Dead
	// peers are found by the keep-alive writes.
	rc := http.NewResponseController(sw.w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	h.cfg.Observer.StreamOpened()
	defer h.cfg.Observer.StreamClosed()
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
	s := h.acquire(sessionID, key, false)
	if s == nil {
		// Another replica's session: end it for every replica; the one
		// holding it closes it at its next check.
		if h.remoteSession(w, r, nil, sessionID, key, false) {
			h.unshare(r.Context(), sessionID)
			w.WriteHeader(http.StatusNoContent)
		}
		return
	}
	sw := newSDKWriter(w)
	h.stateful.ServeHTTP(sw, r)
	sw.finish()
	h.sessions.done(s)
	if st := sw.statusCode(); st == http.StatusNoContent || st == http.StatusNotFound {
		h.sessions.remove(sessionID)
		h.unshare(r.Context(), sessionID)
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
	if v == "application/json" {
		return v // what clients send, without parsing it
	}
	t, _, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	return t
}
