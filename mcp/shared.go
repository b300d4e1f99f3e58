package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpdir/mcpdir"
)

// remoteSession reports whether id is a live shared session of key of the
// given transport, renewing it; it answers 404 itself when not, and 503
// when the shared store cannot tell.
func (h *Handler) remoteSession(w http.ResponseWriter, r *http.Request, reqID json.RawMessage, id string, key *mcpdir.APIKey, legacy bool) bool {
	if h.cfg.Shared == nil {
		h.notFound(w, reqID, legacy)
		return false
	}
	rec, found, err := h.cfg.Shared.Get(r.Context(), id, h.cfg.SessionIdleTimeout)
	switch {
	case err != nil:
		h.log.WarnContext(r.Context(), "mcp: read a shared session", "err", err)
		writeRPCError(w, http.StatusServiceUnavailable, reqID, rpcError{Code: codeInternal,
			Message: "the session could not be checked right now: try again shortly", Data: rpcData{Code: mcpdir.ECodeUnavailable}})
		return false
	case !found || rec.Key != key.Prefix || rec.Legacy != legacy:
		h.notFound(w, reqID, legacy)
		return false
	}
	return true
}

// stillShared reports whether a session this replica holds has not been
// ended elsewhere (a DELETE on another replica); one that has is closed
// here too. While the shared store is away, local sessions go on.
func (h *Handler) stillShared(ctx context.Context, s *session) bool {
	if h.cfg.Shared == nil {
		return true
	}
	_, found, err := h.cfg.Shared.Get(ctx, s.id, h.cfg.SessionIdleTimeout)
	if err != nil || found {
		return true
	}
	if h.sessions.remove(s.id) {
		h.closeSessions([]*session{s})
	}
	return false
}

// share records a session every replica may serve.
func (h *Handler) share(ctx context.Context, id string, key *mcpdir.APIKey, legacy bool) {
	if h.cfg.Shared == nil {
		return
	}
	if err := h.cfg.Shared.Put(ctx, id, mcpdir.SessionRecord{Key: key.Prefix, Legacy: legacy}, h.cfg.SessionIdleTimeout); err != nil {
		h.log.WarnContext(ctx, "mcp: share a session: other replicas will not serve it", "session", id, "err", err)
	}
}

// unshare ends a session for every replica.
func (h *Handler) unshare(ctx context.Context, id string) {
	if h.cfg.Shared == nil {
		return
	}
	if _, err := h.cfg.Shared.Delete(context.WithoutCancel(ctx), id); err != nil {
		h.log.WarnContext(ctx, "mcp: end a shared session", "session", id, "err", err)
	}
}

// relayLegacy passes a message POSTed to a legacy session held by another
// replica to that replica, which feeds it to the session: the answer comes
// on the client's event stream. The message has been checked here.
func (h *Handler) relayLegacy(w http.ResponseWriter, r *http.Request, p *postRequest) {
	if err := h.cfg.Shared.Publish(r.Context(), p.legacyID, p.body); err != nil {
		h.log.WarnContext(r.Context(), "mcp: relay to a legacy session", "err", err)
		writeRPCError(w, http.StatusServiceUnavailable, p.id, rpcError{Code: codeInternal,
			Message: "the message could not be passed to its session right now: try again shortly", Data: rpcData{Code: mcpdir.ECodeUnavailable}})
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// deliverLegacy feeds a message relayed by another replica to the legacy
// session this replica holds, as if it had been POSTed here.
func (h *Handler) deliverLegacy(id string, body []byte) {
	s := h.sessions.lookup(id)
	if s == nil || !s.legacy {
		return // another replica's session, or one that just ended
	}
	msgs, batch, perr := parseBody(body)
	if perr != nil {
		return // checked by the replica that received it
	}
	ctx := context.Background()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, "/?sessionid="+id, nil)
	if err != nil {
		return
	}
	r.Header.Set("Content-Type", "application/json")
	p := &postRequest{body: body, msgs: msgs, batch: batch, legacyID: id}
	h.forward(discard{}, r, s.apiKey, p, h.legacy, nil)
}

// discard is the response of a relayed message: the answer goes to the
// stream, the 202 nowhere.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) WriteHeader(int)             {}
func (discard) Write(p []byte) (int, error) { return len(p), nil }

// remoteStream is a session's GET stream on a replica that does not hold
// the session: the directory sends no server-initiated messages, so the
// stream carries keep-alive comments until the session ends (anywhere),
// its key is revoked, or the client leaves.
func (h *Handler) remoteStream(w http.ResponseWriter, r *http.Request, id string, key *mcpdir.APIKey) {
	if !h.sessions.openStream(key.Prefix) {
		h.tooManyStreams(w, nil)
		return
	}
	defer h.sessions.closeStream(key.Prefix)
	sw := newSDKWriter(w)
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	h.cfg.Observer.StreamOpened()
	defer h.cfg.Observer.StreamClosed()
	sw.Header().Set("Content-Type", "text/event-stream")
	sw.Header().Set("Cache-Control", "no-cache, no-transform")
	sw.WriteHeader(http.StatusOK)
	if sw.comment("stream") != nil {
		return
	}
	keepAlive := time.NewTicker(h.cfg.KeepAliveInterval)
	defer keepAlive.Stop()
	check := time.NewTicker(h.cfg.KeyCheckInterval)
	defer check.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.closing:
			return
		case <-keepAlive.C:
			if sw.comment("keep-alive") != nil {
				return
			}
		case <-check.C:
			rec, found, err := h.cfg.Shared.Get(r.Context(), id, h.cfg.SessionIdleTimeout)
			if err == nil && (!found || rec.Key != key.Prefix) || h.cfg.Guard.Check(key) != nil {
				return
			}
		}
	}
}

// notFound answers that a session is gone.
func (h *Handler) notFound(w http.ResponseWriter, id json.RawMessage, legacy bool) {
	how := "start a new one with initialize"
	if legacy {
		how = "open a new event stream with GET"
	}
	writeRPCError(w, http.StatusNotFound, id, rpcError{Code: codeSessionNotFound,
		Message: "session not found: it ended or expired, or belongs to another API key; " + how,
		Data:    rpcData{Code: dataSessionNotFound}})
}
