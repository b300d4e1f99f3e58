package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// The calls agents make most, tools/call of a directory tool and
// tools/list, are answered here without the SDK, in every era: sessionless,
// inside a Streamable HTTP session, and 2026-07-28. The SDK would connect,
// serve and close a whole session for each sessionless or 2026-07-28
// request (380 KB and 0.4 ms a call), and pass a session's through its
// goroutines and streams. The answer is the SDK's, byte for byte, in its
// framing (an event stream where the SDK answers one), which
// TestDirectMatchesSDK checks era by era; a request this package cannot
// answer exactly as the SDK would (an unusual id, params or _meta, a
// session the SDK has not initialized) goes to the SDK.

// answerForm is how an answer is framed.
type answerForm int

const (
	answerJSON answerForm = iota
	answerSSE             // one "message" event, as the SDK writes it
)

// serveDirect answers p without the SDK if it can; it reports whether it
// answered.
func (h *Handler) serveDirect(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, p *postRequest, version string) bool {
	// Header keys spelled canonically: another spelling is copied into
	// canonical form on every call.
	if !h.direct || p.batch || p.legacyID != "" || len(r.Header.Values("Last-Event-Id")) > 0 {
		return false
	}
	m := p.msgs[0]
	if !m.isCall() || !echoedAsSent(m.id) {
		return false
	}
	switch m.method {
	case "tools/call":
		if !ours(m.tool) || !paramsOnly(m.params, "name", "arguments", "_meta") {
			return false
		}
	case "tools/list":
		if !paramsOnly(m.params, "_meta") {
			return false
		}
	default:
		return false
	}
	form := answerJSON
	if p.wantsSSE && (p.sessionID != "" || p.modern || !p.jsonOK) {
		// Sessionless answers are JSON whenever the client takes JSON
		// (docs/mcp.md); the SDK's handlers answer a stream to a client
		// that accepts one.
		form = answerSSE
	}
	switch {
	case p.modern:
		if !h.modernMatches(r, m, version) {
			return false
		}
	case !legacyMeta(m.params.get("_meta")):
		return false
	case p.sessionID != "":
		sess := h.acquire(p.sessionID, key, false)
		if sess == nil {
			return false // another replica's, or none: the SDK's path says which
		}
		defer h.sessions.done(sess)
		if !h.stillShared(r.Context(), sess) {
			h.notFound(w, p.id, false)
			return true
		}
		if !h.initialized(sess) {
			return false
		}
		if !sess.startCall(m.id) {
			// What the SDK answers to a second call with the id of one
			// in flight in the session.
			body := appendMessageHead(pooledBuffer(), m.id)
			body = append(body, `"error":{"code":-32600,"message":"duplicate in-flight request ID `...)
			body = append(append(body, rawID(m.id)...), `"}}`...)
			writeAnswer(w, http.StatusBadRequest, answerJSON, body)
			return true
		}
		defer sess.endCall(m.id)
	}
	if m.method == "tools/list" {
		list := h.lists.legacy
		if p.modern {
			list = h.lists.modern
		}
		body := appendMessageHead(h.frame(form), m.id)
		body = append(append(append(body, `"result":`...), list...), '}')
		writeAnswer(w, http.StatusOK, form, body)
		return true
	}
	h.callDirect(w, r, key, m, form, p.modern)
	return true
}

// callDirect runs a tools/call of a directory tool and answers it as the
// SDK would.
func (h *Handler) callDirect(w http.ResponseWriter, r *http.Request, key *mcpdir.APIKey, m *message, form answerForm, modern bool) {
	out, err := h.tools.call(r.Context(), h.cfg.Guard, key, m.tool, m.params.get("arguments"), func(d mcpdir.RateDecision) {
		wire.SetRateLimitHeaders(w.Header(), d)
	})
	body := appendMessageHead(h.frame(form), m.id)
	if err != nil {
		body = append(body, `"error":{"code":-32603,"message":"internal error"}}`...)
		writeAnswer(w, http.StatusOK, form, body)
		return
	}
	body = append(body, `"result":`...)
	if modern {
		body = out.appendResult(body, h.lists.serverInfo)
	} else {
		body = out.appendResult(body, nil)
	}
	writeAnswer(w, http.StatusOK, form, append(body, '}'))
}

// sseHead starts an answer framed as the SDK frames it in an event stream
// (no event ids: the server keeps no event store).
const sseHead = "event: message\ndata: "

// frame returns a pooled buffer that starts the answer's framing.
func (h *Handler) frame(form answerForm) []byte {
	if form == answerSSE {
		return append(pooledBuffer(), sseHead...)
	}
	return pooledBuffer()
}

// appendMessageHead appends the start of a JSON-RPC response, up to the
// member after its id.
func appendMessageHead(dst []byte, id json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	return append(append(dst, id...), ',')
}

// writeAnswer writes a POST's answer with the headers the SDK gives it,
// and gives body back to the pool.
func writeAnswer(w http.ResponseWriter, status int, form answerForm, body []byte) {
	// The values are shared by every answer, not made by Header.Set for
	// each: net/http only reads them, and a handler that changes a header
	// sets a slice of its own.
	hdr := w.Header()
	switch {
	case status != http.StatusOK:
		hdr["Content-Type"] = jsonType
	case form == answerSSE:
		body = append(body, "\n\n"...)
		hdr["Cache-Control"] = noCache
		hdr["Content-Type"] = eventStreamType
		hdr["Connection"] = keepAlive
	default:
		hdr["Cache-Control"] = noCache
		hdr["Content-Type"] = jsonType
	}
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
	outputBuffers.Put(&body)
}

// The values of writeAnswer's headers.
var (
	jsonType        = []string{"application/json"}
	eventStreamType = []string{"text/event-stream"}
	noCache         = []string{"no-cache, no-transform"}
	keepAlive       = []string{"keep-alive"}
)

// echoedAsSent reports whether the SDK would echo id byte for byte: an
// integer a float64 holds, in plain notation, or a string of printable
// ASCII that JSON encoders leave as it is. Other ids take the SDK's path,
// which restores them (ids.go).
func echoedAsSent(id json.RawMessage) bool {
	if id[0] != '"' {
		return exactInSDK(id)
	}
	if !exactInSDK(id) || len(id) < 2 {
		return false
	}
	for _, c := range id[1 : len(id)-1] {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// rawID is the id as the SDK prints it in a message: a string's contents
// (echoedAsSent ids only).
func rawID(id json.RawMessage) []byte {
	if id[0] == '"' {
		return id[1 : len(id)-1]
	}
	return id
}

// paramsOnly reports whether params has no member but the names: another
// (a cursor, a task) asks for what only the SDK does.
func paramsOnly(params object, names ...string) bool {
	for _, m := range params {
		if !slices.Contains(names, m.name) {
			return false
		}
	}
	return true
}

// legacyMeta reports whether a request before 2026-07-28 carries a _meta
// the SDK accepts without a second look: none, null, or an object without
// a protocol version (which the SDK checks against the header).
func legacyMeta(raw json.RawMessage) bool {
	if raw == nil || isNull(raw) {
		return true
	}
	var buf [4]member
	meta, err := decodeMembers(buf[:0], raw)
	return err == nil && meta.get(protocolMeta) == nil
}

// modernMatches reports whether a 2026-07-28 request passes every check
// the SDK makes of it: the version, method and name headers match the
// body, and _meta carries the version and valid client capabilities (and
// client info, if any). A request that fails one goes to the SDK, which
// answers why.
func (h *Handler) modernMatches(r *http.Request, m *message, version string) bool {
	if version == "" || r.Header.Get("Mcp-Method") != m.method {
		return false
	}
	if m.method == "tools/call" && r.Header.Get("Mcp-Name") != m.tool {
		return false
	}
	var buf [4]member
	meta, err := decodeMembers(buf[:0], m.params.get("_meta"))
	if err != nil {
		return false
	}
	if v, ok := unquote(meta.get(protocolMeta)); !ok || v != version {
		return false
	}
	if raw := meta.get(capabilitiesMeta); raw == nil || isNull(raw) || string(raw) != "{}" && !clientCapabilities(raw) {
		return false
	}
	if raw := meta.get(clientInfoMeta); raw != nil {
		var info *sdk.Implementation
		if isNull(raw) || json.Unmarshal(raw, &info) != nil {
			return false
		}
	}
	return true
}

// clientCapabilities reports whether raw decodes as the SDK decodes a
// client's capabilities. (Apart from modernMatches, whose common "{}" then
// allocates nothing.)
func clientCapabilities(raw json.RawMessage) bool {
	var caps struct {
		sdk.ClientCapabilities
		Roots *sdk.RootCapabilities `json:"roots,omitempty"`
	}
	return json.Unmarshal(raw, &caps) == nil
}

// The SEP-2575 _meta keys of a 2026-07-28 request, besides protocolMeta.
const (
	capabilitiesMeta = "io.modelcontextprotocol/clientCapabilities"
	clientInfoMeta   = "io.modelcontextprotocol/clientInfo"
)

// initialized reports whether the SDK's side of a session has seen its
// initialize (before that it refuses calls), finding the SDK's session
// once.
func (h *Handler) initialized(s *session) bool {
	ss := s.sdk.Load()
	if ss == nil {
		for candidate := range h.server.Sessions() {
			if candidate.ID() == s.id {
				ss = candidate
				break
			}
		}
		if ss == nil {
			return false
		}
		s.sdk.Store(ss)
	}
	return ss.InitializeParams() != nil
}

// startCall notes a call in flight in the session; false if one with the
// same id is.
func (s *session) startCall(id json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.calls[string(id)]; busy {
		return false
	}
	if s.calls == nil {
		s.calls = map[string]struct{}{}
	}
	s.calls[string(id)] = struct{}{}
	return true
}

func (s *session) endCall(id json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.calls, string(id))
}

// toolLists are the SDK's own answers to tools/list, before and from
// 2026-07-28, and the server's info that 2026-07-28 results carry.
type toolLists struct {
	legacy, modern, serverInfo json.RawMessage
}

// captureLists asks the SDK's stateless handler for its tools/list
// answers, once: the tools never change.
func captureLists(stateless http.Handler) (toolLists, error) {
	var lists toolLists
	for _, c := range []struct {
		version, meta string
		into          *json.RawMessage
	}{
		{"2025-11-25", "", &lists.legacy},
		{modernVersion, `"_meta":{"` + protocolMeta + `":"` + modernVersion + `","` + capabilitiesMeta + `":{}}`, &lists.modern},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + c.meta + `}}`
		w := &captured{header: http.Header{}}
		r, err := http.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		if err != nil {
			return lists, err
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", c.version)
		r.Header.Set("Mcp-Method", "tools/list")
		stateless.ServeHTTP(w, r)
		events := w.body.String()
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		data, ok := strings.CutPrefix(events, sseHead)
		if !ok || json.Unmarshal([]byte(data), &resp) != nil || resp.Result == nil {
			return lists, errCapture(events)
		}
		*c.into = resp.Result
	}
	var modern struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(lists.modern, &modern)
	if lists.serverInfo = modern.Meta["io.modelcontextprotocol/serverInfo"]; lists.serverInfo == nil {
		return lists, errCapture(string(lists.modern))
	}
	return lists, nil
}

// captured is the response of a request made to the SDK in process.
type captured struct {
	header http.Header
	body   bytes.Buffer
}

func (c *captured) Header() http.Header         { return c.header }
func (c *captured) WriteHeader(int)             {}
func (c *captured) Write(p []byte) (int, error) { return c.body.Write(p) }

func errCapture(answer string) error {
	return fmt.Errorf("mcp: the SDK's tools/list answer was not understood: %.200q", answer)
}
