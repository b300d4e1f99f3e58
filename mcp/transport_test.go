package mcp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

var sessionVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// TestStreamableSession walks a session of each Streamable HTTP era through
// the transport's rules: initialize, initialized, requests answered as SSE
// or JSON as the client accepts, the GET stream, DELETE, and the session
// gone after.
func TestStreamableSession(t *testing.T) {
	for _, version := range sessionVersions {
		t.Run(version, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.KeepAliveInterval = 50 * time.Millisecond })

			resp := e.post(jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("initialize accepting both: Content-Type %q, want text/event-stream", ct)
			}
			sid := resp.Header.Get("Mcp-Session-Id")
			r := readRPC(t, resp, http.StatusOK)
			var init struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct{ Name string }
				Capabilities    map[string]json.RawMessage
				Instructions    string
			}
			json.Unmarshal(r.Result, &init)
			if sid == "" || init.ProtocolVersion != version || init.ServerInfo.Name != "mcpdir" || init.Capabilities["tools"] == nil || init.Instructions == "" {
				t.Fatalf("initialize: session %q, result %s", sid, r.Result)
			}

			h := sessionHeaders(keyA, sid, version)
			if resp := e.post(h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("notification: status %d, want 202", resp.StatusCode)
			}

			// Answered as JSON when the client accepts only JSON.
			jh := sessionHeaders(keyA, sid, version)
			jh["Accept"] = "application/json"
			resp = e.post(jh, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("tools/list accepting JSON: Content-Type %q", ct)
			}
			r = readRPC(t, resp, http.StatusOK)
			var list struct{ Tools []struct{ Name string } }
			json.Unmarshal(r.Result, &list)
			if len(list.Tools) != 2 {
				t.Errorf("tools/list: %s", r.Result)
			}

			// A ping, as SSE.
			resp = e.post(h, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("ping: Content-Type %q", ct)
			}
			if r := readRPC(t, resp, http.StatusOK); string(r.ID) != `"p"` || r.Error != nil {
				t.Errorf("ping: %+v", r)
			}

			// The session's GET stream opens, with keep-alive comments.
			get := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": sid, "Mcp-Protocol-Version": version}, "")
			if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("GET stream: %d %q", get.StatusCode, get.Header.Get("Content-Type"))
			}
			sr := newSSEReader(t, get)
			if ev := sr.next(); ev.event != ":" {
				t.Errorf("first stream event %+v, want a comment", ev)
			}
			if ev := sr.next(); ev != (sseEvent{event: ":", data: "keep-alive"}) {
				t.Errorf("stream event %+v, want a keep-alive comment", ev)
			}

			// DELETE ends the session, and ends its stream.
			if resp := e.do(http.MethodDelete, e.url, hdr{"Authorization": keyA, "Mcp-Session-Id": sid}, ""); resp.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE: status %d", resp.StatusCode)
			}
			wantRPCError(t, e.post(h, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
			wantRPCError(t, e.do(http.MethodDelete, e.url, hdr{"Authorization": keyA, "Mcp-Session-Id": sid}, ""), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
		})
	}
}

// TestStreamableRules covers the rows of the Streamable HTTP rules that a
// well-behaved session does not reach.
func TestStreamableRules(t *testing.T) {
	e := newEnv(t, nil)
	const v = "2025-11-25"
	sid := e.initialize(keyA, v)
	h := sessionHeaders(keyA, sid, v)

	t.Run("unknown session", func(t *testing.T) {
		wantRPCError(t, e.post(sessionHeaders(keyA, "nope", v), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
		wantRPCError(t, e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": "nope"}, ""), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
	})
	t.Run("another key's session", func(t *testing.T) {
		wantRPCError(t, e.post(sessionHeaders(keyB, sid, v), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
		wantRPCError(t, e.do(http.MethodDelete, e.url, hdr{"Authorization": keyB, "Mcp-Session-Id": sid}, ""), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
	})
	t.Run("unsupported protocol version", func(t *testing.T) {
		r := wantRPCError(t, e.post(sessionHeaders(keyA, sid, "2099-01-01"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.StatusBadRequest, codeUnsupportedVer, dataUnsupportedVersion)
		if len(r.Error.Data.Supported) == 0 {
			t.Error("no supported versions in data")
		}
	})
	t.Run("parse error", func(t *testing.T) {
		r := wantRPCError(t, e.post(h, `{"jsonrpc":"2.0",`), http.StatusBadRequest, codeParseError, dataParseError)
		if string(r.ID) != "null" {
			t.Errorf("id %s, want null", r.ID)
		}
	})
	t.Run("invalid request", func(t *testing.T) {
		for _, body := range []string{`{"id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":7}`, `42`, `[]`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":1}`} {
			wantRPCError(t, e.post(h, body), http.StatusBadRequest, codeInvalidRequest, "invalid_request")
		}
		r := wantRPCError(t, e.post(h, `{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}`), http.StatusBadRequest, codeInvalidRequest, "invalid_request")
		if string(r.ID) != "9" {
			t.Errorf("id %s, want 9", r.ID)
		}
		wantRPCError(t, e.post(h, `{"jsonrpc":"2.0","method":"tools/list"}`), http.StatusBadRequest, codeInvalidRequest, "invalid_request")
	})
	t.Run("unknown method", func(t *testing.T) {
		r := wantRPCError(t, e.post(h, `{"jsonrpc":"2.0","id":5,"method":"foo/bar"}`), http.StatusOK, codeMethodNotFound, dataMethodNotFound)
		if string(r.ID) != "5" {
			t.Errorf("id %s, want 5", r.ID)
		}
		if resp := e.post(h, `{"jsonrpc":"2.0","method":"notifications/foo"}`); resp.StatusCode != http.StatusAccepted {
			t.Errorf("unknown notification: status %d, want 202", resp.StatusCode)
		}
	})
	t.Run("missing params", func(t *testing.T) {
		wantRPCError(t, e.post(h, `{"jsonrpc":"2.0","id":5,"method":"tools/call"}`), http.StatusOK, codeInvalidParams, "invalid_request")
	})
	t.Run("unknown tool", func(t *testing.T) {
		before := e.guard.spent()
		r := readRPC(t, e.post(h, toolCall(6, "no_such_tool", `{}`)), http.StatusOK)
		if r.Error == nil || r.Error.Code != codeInvalidParams {
			t.Errorf("unknown tool: %+v", r)
		}
		if e.guard.spent() != before {
			t.Error("an unknown tool spent budget")
		}
	})
	t.Run("content type", func(t *testing.T) {
		th := sessionHeaders(keyA, sid, v)
		th["Content-Type"] = "text/plain"
		wantRPCError(t, e.post(th, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusUnsupportedMediaType, codeTransport, dataUnsupportedMedia)
	})
	t.Run("not acceptable", func(t *testing.T) {
		th := sessionHeaders(keyA, sid, v)
		th["Accept"] = "text/html"
		wantRPCError(t, e.post(th, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusNotAcceptable, codeTransport, dataNotAcceptable)
		wantRPCError(t, e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "application/json", "Mcp-Session-Id": sid}, ""), http.StatusNotAcceptable, codeTransport, dataNotAcceptable)
	})
	t.Run("initialize answered as JSON", func(t *testing.T) {
		resp := e.post(hdr{"Authorization": keyA, "Content-Type": "application/json"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`)
		sid := resp.Header.Get("Mcp-Session-Id")
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" || sid == "" {
			t.Fatalf("Content-Type %q, session %q", ct, sid)
		}
		readRPC(t, resp, http.StatusOK)
		if r := readRPC(t, e.post(sessionHeaders(keyA, sid, "2025-06-18"), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), http.StatusOK); r.Error != nil {
			t.Errorf("tools/list in the session: %+v", r.Error)
		}
	})
	t.Run("no Accept header answers JSON", func(t *testing.T) {
		resp := e.post(hdr{"Authorization": keyA, "Content-Type": "application/json", "Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		readRPC(t, resp, http.StatusOK)
	})
	t.Run("a second GET stream conflicts", func(t *testing.T) {
		g := hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": sid}
		first := e.do(http.MethodGet, e.url, g, "")
		if first.StatusCode != http.StatusOK {
			t.Fatalf("first GET: %d", first.StatusCode)
		}
		newSSEReader(t, first).next()
		wantRPCError(t, e.do(http.MethodGet, e.url, g, ""), http.StatusConflict, codeTransport, dataStreamConflict)
	})
	t.Run("no stream replay", func(t *testing.T) {
		wantRPCError(t, e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": sid, "Last-Event-ID": "abc_1"}, ""), http.StatusBadRequest, codeTransport, "invalid_request")
	})
	t.Run("DELETE without a session", func(t *testing.T) {
		wantRPCError(t, e.do(http.MethodDelete, e.url, hdr{"Authorization": keyA}, ""), http.StatusBadRequest, codeTransport, dataSessionRequired)
	})
	t.Run("other methods", func(t *testing.T) {
		resp := e.do(http.MethodPut, e.url, hdr{"Authorization": keyA}, "")
		wantRPCError(t, resp, http.StatusMethodNotAllowed, codeTransport, "method_not_allowed")
		if resp.Header.Get("Allow") != allowedMethods {
			t.Errorf("Allow %q", resp.Header.Get("Allow"))
		}
	})
	t.Run("batches", func(t *testing.T) {
		// 2025-03-26 has batches; later versions do not.
		sid := e.initialize(keyA, "2025-03-26")
		bh := sessionHeaders(keyA, sid, "2025-03-26")
		bh["Accept"] = "application/json"
		resp := e.post(bh, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
		var out []rpcResp
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out) != 2 {
			t.Errorf("batch answer: %v %+v (%s)", err, out, resp.Header.Get("Content-Type"))
		}
		wantRPCError(t, e.post(h, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`), http.StatusBadRequest, codeInvalidRequest, dataBatchNotSupported)
	})
}

// TestSessionless: a POST without a session and without initialize is
// served statelessly in any era, as the spec's plain tools/call example
// expects.
func TestSessionless(t *testing.T) {
	e := newEnv(t, nil)
	resp := e.post(hdr{"Authorization": keyA, "Content-Type": "application/json"}, toolCall(1, toolSearch, `{"keywords":"postgres"}`))
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a sessionless request got a session")
	}
	_, text := decodeToolResult(t, readRPC(t, resp, http.StatusOK))
	if text["success"] != true || text["count"] != 1.0 {
		t.Errorf("search: %v", text)
	}
	r := readRPC(t, e.post(jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), http.StatusOK)
	if r.Error != nil {
		t.Errorf("tools/list: %+v", r.Error)
	}
}

// modernHeaders are a 2026-07-28 request's headers.
func modernHeaders(key, method, name string) hdr {
	h := jsonHeaders(key, hdr{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method})
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// TestModern covers the 2026-07-28 stateless era.
func TestModern(t *testing.T) {
	e := newEnv(t, nil)

	t.Run("server/discover", func(t *testing.T) {
		resp := e.post(modernHeaders(keyA, "server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
		if resp.Header.Get("Mcp-Session-Id") != "" {
			t.Error("a 2026-07-28 request got a session")
		}
		r := readRPC(t, resp, http.StatusOK)
		var d struct{ SupportedVersions []string }
		json.Unmarshal(r.Result, &d)
		if r.Error != nil || !strings.Contains(strings.Join(d.SupportedVersions, ","), "2026-07-28") {
			t.Errorf("discover: %s %+v", r.Result, r.Error)
		}
	})
	t.Run("tools/call", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"sql"},` + modernMeta + `}}`
		before := e.guard.spent()
		resp := e.post(modernHeaders(keyA, "tools/call", toolSearch), body)
		if resp.Header.Get("RateLimit-Remaining") == "" {
			t.Error("no rate-limit headers")
		}
		_, text := decodeToolResult(t, readRPC(t, resp, http.StatusOK))
		if text["count"] != 2.0 || e.guard.spent() != before+1 {
			t.Errorf("search: %v, spent %d", text, e.guard.spent()-before)
		}
	})
	t.Run("header mismatch", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"sql"},` + modernMeta + `}}`
		r := readRPC(t, e.post(modernHeaders(keyA, "tools/call", toolDetail), body), http.StatusBadRequest)
		if r.Error == nil || r.Error.Code != -32020 {
			t.Errorf("Mcp-Name mismatch: %+v", r)
		}
		r = readRPC(t, e.post(modernHeaders(keyA, "tools/list", ""), body), http.StatusBadRequest)
		if r.Error == nil || r.Error.Code != -32020 {
			t.Errorf("Mcp-Method mismatch: %+v", r)
		}
		noMethod := modernHeaders(keyA, "", "")
		delete(noMethod, "Mcp-Method")
		r = readRPC(t, e.post(noMethod, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{`+modernMeta+`}}`), http.StatusBadRequest)
		if r.Error == nil || r.Error.Code != -32020 {
			t.Errorf("missing Mcp-Method: %+v", r)
		}
	})
	t.Run("unknown method", func(t *testing.T) {
		wantRPCError(t, e.post(modernHeaders(keyA, "foo/bar", ""), `{"jsonrpc":"2.0","id":5,"method":"foo/bar","params":{`+modernMeta+`}}`), http.StatusNotFound, codeMethodNotFound, dataMethodNotFound)
	})
	t.Run("subscriptions/listen ends at once", func(t *testing.T) {
		// The tool list never changes and there are no resources: nothing
		// to listen to, so the SDK answers at once and no stream stays open.
		body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + modernMeta + `}}`
		resp := e.post(modernHeaders(keyA, "subscriptions/listen", ""), body)
		if r := readRPC(t, resp, http.StatusOK); r.Error != nil || !strings.Contains(string(r.Result), "complete") {
			t.Errorf("listen: %+v %s", r.Error, r.Result)
		}
	})
	t.Run("unknown tool", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope","arguments":{},` + modernMeta + `}}`
		r := readRPC(t, e.post(modernHeaders(keyA, "tools/call", "nope"), body), http.StatusBadRequest)
		if r.Error == nil || r.Error.Code != codeInvalidParams {
			t.Errorf("unknown tool: %+v", r)
		}
	})
	t.Run("removed methods", func(t *testing.T) {
		r := readRPC(t, e.post(modernHeaders(keyA, "ping", ""), `{"jsonrpc":"2.0","id":9,"method":"ping","params":{`+modernMeta+`}}`), http.StatusNotFound)
		if r.Error == nil || r.Error.Code != codeMethodNotFound {
			t.Errorf("ping: %+v", r)
		}
	})
	t.Run("no GET or DELETE", func(t *testing.T) {
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			resp := e.do(m, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Protocol-Version": "2026-07-28"}, "")
			wantRPCError(t, resp, http.StatusMethodNotAllowed, codeTransport, "method_not_allowed")
			if resp.Header.Get("Allow") != "POST" {
				t.Errorf("%s: Allow %q", m, resp.Header.Get("Allow"))
			}
		}
	})
}

// TestLegacySSE covers the 2024-11-05 HTTP+SSE transport on the same path.
func TestLegacySSE(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.KeepAliveInterval = 50 * time.Millisecond })
	get := e.do(http.MethodGet, e.url, hdr{"Authorization": "Bearer " + keyA, "Accept": "text/event-stream"}, "")
	if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %q", get.StatusCode, get.Header.Get("Content-Type"))
	}
	sr := newSSEReader(t, get)
	ev := sr.next()
	if ev.event != "endpoint" || !strings.HasPrefix(ev.data, "/api/open/mcp?sessionid=") {
		t.Fatalf("first event %+v, want the endpoint", ev)
	}
	endpoint := e.srv.URL + ev.data
	next := func() sseEvent {
		for {
			if ev := sr.next(); ev.event != ":" {
				return ev
			}
		}
	}
	postLegacy := func(key, body string) *http.Response {
		return e.do(http.MethodPost, endpoint, hdr{"Authorization": key, "Content-Type": "application/json"}, body)
	}

	if resp := postLegacy(keyA, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST initialize: %d", resp.StatusCode)
	}
	if ev := next(); ev.event != "message" || !strings.Contains(ev.data, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answer %+v", ev)
	}
	postLegacy(keyA, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// The POST is accepted before the tool runs, so its answer carries no
	// rate-limit headers; the call spends when it runs.
	before := e.guard.spent()
	resp := postLegacy(keyA, toolCall(2, toolSearch, `{"keywords":"github"}`))
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("POST tools/call: %d", resp.StatusCode)
	}
	ev = next()
	if spent := e.guard.spent() - before; spent != 1 {
		t.Errorf("the call spent %d", spent)
	}
	var r rpcResp
	json.Unmarshal([]byte(ev.data), &r)
	if _, text := decodeToolResult(t, r); text["count"] != 1.0 {
		t.Errorf("search on the stream: %v", text)
	}

	// Keep-alive comments flow on the stream.
	if ev := sr.next(); ev != (sseEvent{event: ":", data: "keep-alive"}) {
		t.Errorf("want a keep-alive comment, got %+v", ev)
	}

	wantRPCError(t, postLegacy(keyB, `{"jsonrpc":"2.0","id":3,"method":"ping"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
	wantRPCError(t, postLegacy(keyA, `{"jsonrpc":"2.0","id":4,"method":"nope"}`), http.StatusOK, codeMethodNotFound, dataMethodNotFound)
	wantRPCError(t, postLegacy(keyA, `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`), http.StatusBadRequest, codeInvalidRequest, dataBatchNotSupported)
	u, _ := url.Parse(endpoint)
	q := u.Query()
	q.Set("sessionid", "unknown")
	u.RawQuery = q.Encode()
	wantRPCError(t, e.do(http.MethodPost, u.String(), hdr{"Authorization": keyA, "Content-Type": "application/json"}, `{"jsonrpc":"2.0","id":6,"method":"ping"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)

	// Ending the stream ends the session.
	get.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp := postLegacy(keyA, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
		if resp.StatusCode == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session still there after its stream closed: %d", resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
