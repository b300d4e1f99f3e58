package mcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpdir/mcpdir"
)

// postRequest is a POST read and parsed.
type postRequest struct {
	body      []byte
	pooled    *[]byte // what body was read into, from bodyBuffers
	msgs      []*message
	batch     bool
	id        json.RawMessage // the request's id; nil for a batch or a notification
	legacyID  string          // ?sessionid= of a 2024-11-05 session
	sessionID string          // Mcp-Session-Id
	modern    bool            // 2026-07-28
	jsonOK    bool            // the client accepts a JSON answer
	wantsSSE  bool            // the client asks for event streams
}

// readPost checks a POST's media types and reads its body as JSON-RPC, or
// answers why it cannot.
func (h *Handler) readPost(w http.ResponseWriter, r *http.Request, version string) (*postRequest, bool) {
	if mediaType(r.Header.Get("Content-Type")) != "application/json" {
		writeRPCError(w, http.StatusUnsupportedMediaType, nil, rpcError{Code: codeTransport,
			Message: "send JSON-RPC messages with Content-Type: application/json", Data: rpcData{Code: dataUnsupportedMedia}})
		return nil, false
	}
	p := &postRequest{sessionID: r.Header.Get("Mcp-Session-Id")}
	if r.URL.RawQuery != "" {
		p.legacyID = r.URL.Query().Get("sessionid")
	}
	p.jsonOK, p.wantsSSE = accepts(r.Header.Values("Accept"))
	if p.legacyID == "" && !p.jsonOK && !p.wantsSSE {
		writeRPCError(w, http.StatusNotAcceptable, nil, rpcError{Code: codeTransport,
			Message: "answers are application/json or text/event-stream: accept one of them", Data: rpcData{Code: dataNotAcceptable}})
		return nil, false
	}
	p.pooled = bodyBuffers.Get().(*[]byte)
	buf := bytes.NewBuffer((*p.pooled)[:0])
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, h.cfg.MaxBodyBytes))
	p.body = buf.Bytes()
	if err != nil {
		p.release()
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcError{Code: codeTransport,
				Message: fmt.Sprintf("the body is larger than %d bytes", h.cfg.MaxBodyBytes), Data: rpcData{Code: mcpdir.ECodeTooLarge}})
			return nil, false
		}
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeTransport,
			Message: "the body could not be read", Data: rpcData{Code: mcpdir.ECodeInvalidRequest}})
		return nil, false
	}
	var perr *parseError
	if p.msgs, p.batch, perr = parseBody(p.body); perr != nil {
		writeRPCError(w, perr.resp, perr.id, perr.err)
		p.release()
		return nil, false
	}
	if !p.batch {
		p.id = p.msgs[0].id
	}
	p.modern = version >= modernVersion || version == "" && p.msgs[0].metaVersion() >= modernVersion
	if p.batch && (p.legacyID != "" || cmp.Or(version, defaultVersion) >= noBatchVersion) {
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{Code: codeInvalidRequest,
			Message: fmt.Sprintf("JSON-RPC batches are not supported in protocol version %s on this transport: send one message per POST", cmp.Or(version, defaultVersion)),
			Data:    rpcData{Code: dataBatchNotSupported}})
		p.release()
		return nil, false
	}
	return p, true
}

// bodyBuffers recycles the buffers POST bodies are read into: a call
// answered directly is done with its body when it has answered, and a
// body read afresh was the largest allocation of a call.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// release gives the body's buffer back to the pool, once nothing refers
// to the body (or to the messages, whose members are slices of it). Bodies
// handed to the SDK are not released: it may keep them past the request.
// A buffer a large body grew is left to the collector.
func (p *postRequest) release() {
	if cap(p.body) <= maxPooledBody {
		*p.pooled = p.body[:0]
		bodyBuffers.Put(p.pooled)
	}
	p.body, p.msgs, p.pooled = nil, nil, nil
}

// maxPooledBody is the largest buffer bodyBuffers keeps: a call's body is
// a few hundred bytes.
const maxPooledBody = 64 << 10

// post routes a POST: a sessionless call of a directory tool to the fast
// path; to the legacy session its URL names, to the stateless handler for
// the 2026-07-28 era, to the session its Mcp-Session-Id names, to a new
// session for initialize, and otherwise to the stateless handler, which
// serves a sessionless request of any era.
func (h *Handler) post(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, version string) {
	p, ok := h.readPost(w, r, version)
	if !ok {
		return
	}
	for _, m := range p.msgs {
		h.counters.count(m)
	}
	if h.serveDirect(w, r, key, p, version) {
		p.release()
		return
	}
	handler := h.stateless
	switch {
	case p.legacyID != "":
		handler = h.legacy
	case p.modern:
	case p.sessionID != "" || !p.batch && p.msgs[0].method == "initialize":
		handler = h.stateful
	}

	// The session comes before the messages: a client must learn first that
	// its session is gone.
	var sess *session
	var res *reservation
	switch {
	case p.legacyID != "":
		if sess = h.acquire(p.legacyID, key, true); sess == nil {
			// Another replica's session: relay, once the message is
			// known to be acceptable.
			if !h.remoteSession(w, r, p.id, p.legacyID, key, true) || h.checkMethods(w, p.msgs, false) {
				return
			}
			h.relayLegacy(w, r, p)
			return
		}
		defer h.sessions.done(sess)
	case handler == h.stateful && p.sessionID != "":
		if sess = h.acquire(p.sessionID, key, false); sess != nil {
			defer h.sessions.done(sess)
			if !h.stillShared(r.Context(), sess) {
				h.notFound(w, p.id, false)
				return
			}
		} else if h.remoteSession(w, r, p.id, p.sessionID, key, false) {
			// Another replica's session: the directory keeps no state in
			// a session that a sessionless request lacks.
			handler = h.stateless
		} else {
			return
		}
	case handler == h.stateful:
		if res = h.reserve(w, p.id, key); res == nil {
			return
		}
		defer res.release()
	}

	if m := p.msgs[0]; !p.batch && m.method != "" && m.id == nil {
		if _, known := knownMethods[m.method]; !known {
			// An unknown notification is dropped, as JSON-RPC wants.
			w.WriteHeader(http.StatusAccepted)
			return
		}
	}
	if h.checkMethods(w, p.msgs, p.modern) {
		return
	}
	status := h.forward(w, r, key, p, handler, res)
	if sess != nil && status == http.StatusNotFound {
		h.sessions.remove(sess.id) // the SDK no longer has it
	}
}

// forward hands the messages to an SDK handler, each call of a directory
// tool with its ticket, and returns the status the SDK answered.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, p *postRequest, handler http.Handler, res *reservation) int {
	rcpt := &receipt{}
	body := p.body
	changed, err := h.tickets.attachTickets(p.msgs, key, rcpt)
	if err == nil && (changed || slices.ContainsFunc(p.msgs, func(m *message) bool { return m.standIn })) {
		body, err = encodeBody(p.msgs, p.batch)
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "mcp: attach budget ticket", "err", err)
		writeRPCError(w, http.StatusInternalServerError, p.id, rpcError{Code: codeInternal, Message: "internal error", Data: rpcData{Code: mcpdir.ECodeInternal}})
		return http.StatusInternalServerError
	}

	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	// The SDK insists on both; what this client accepts is honoured by the
	// writer instead.
	r.Header.Set("Accept", "application/json, text/event-stream")

	sw := newSDKWriter(w)
	sw.id, sw.batch, sw.limit = p.id, p.batch, MaxAnswerBytes
	sw.toJSON = p.legacyID == "" && !p.wantsSSE
	var born *session
	sw.onHeader = func(status int, hdr http.Header) {
		rcpt.setHeaders(hdr)
		if sid := hdr.Get("Mcp-Session-Id"); res != nil && status == http.StatusOK && sid != "" {
			born = res.commit(sid, false, nil)
			h.share(r.Context(), sid, key, false)
		}
	}
	handler.ServeHTTP(sw, r)
	sw.finish()
	if born != nil {
		h.sessions.done(born)
	}
	return sw.statusCode()
}

// reserve holds a place for a new session of the key, closing the session
// it evicts to make room, or answers 429 when all the key's sessions are
// busy.
func (h *Handler) reserve(w http.ResponseWriter, id json.RawMessage, key *mcpdir.APIKey) *reservation {
	res, evicted, ok := h.sessions.reserve(key)
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

// acquire finds a session of the key that this replica holds, marking a
// request in flight; nil if there is none.
func (h *Handler) acquire(sessionID string, key *mcpdir.APIKey, legacy bool) *session {
	s, _ := h.sessions.acquire(sessionID, key.Prefix, legacy)
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
