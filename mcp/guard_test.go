package mcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

func TestAuth(t *testing.T) {
	e := newEnv(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name, authorization, dataCode string
	}{
		{"missing", "", "missing_key"},
		{"invalid", "Bearer mcpd_wrong", "invalid_key"},
		{"invalid bare", "mcpd_wrong", "invalid_key"},
		{"expired", "Bearer " + keyExpired, "expired_key"},
		{"revoked", keyRevoked, "revoked_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := jsonHeaders("", nil)
			if tc.authorization != "" {
				h["Authorization"] = tc.authorization
			}
			resp := e.post(h, body)
			wantRPCError(t, resp, http.StatusUnauthorized, codeUnauthorized, tc.dataCode)
			if c := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(c, "Bearer ") {
				t.Errorf("WWW-Authenticate %q", c)
			}
		})
	}
	t.Run("every method needs a key", func(t *testing.T) {
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			resp := e.do(m, e.url, hdr{"Accept": "text/event-stream", "Mcp-Session-Id": "x"}, "")
			wantRPCError(t, resp, http.StatusUnauthorized, codeUnauthorized, "missing_key")
			if resp.Header.Get("WWW-Authenticate") != `Bearer realm="mcpdir"` {
				t.Errorf("%s: WWW-Authenticate %q", m, resp.Header.Get("WWW-Authenticate"))
			}
		}
	})
	t.Run("bearer and bare keys", func(t *testing.T) {
		for _, a := range []string{"Bearer " + keyA, "bearer " + keyA, keyA} {
			h := jsonHeaders("", nil)
			h["Authorization"] = a
			if r := readRPC(t, e.post(h, body), http.StatusOK); r.Error != nil {
				t.Errorf("%q: %+v", a, r.Error)
			}
		}
	})
}

// TestBudget: only tools/call spends the key's budget, and a rate-limited
// call is a tool result that says when to retry, with the headers.
func TestBudget(t *testing.T) {
	e := newEnv(t, nil)
	const v = "2025-06-18"
	sid := e.initialize(keyLimited, v)
	h := sessionHeaders(keyLimited, sid, v)
	readRPC(t, e.post(h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.StatusOK)
	readRPC(t, e.post(h, `{"jsonrpc":"2.0","id":2,"method":"ping"}`), http.StatusOK)
	e.post(h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	get := e.do(http.MethodGet, e.url, hdr{"Authorization": keyLimited, "Accept": "text/event-stream", "Mcp-Session-Id": sid}, "")
	newSSEReader(t, get).next()
	get.Body.Close()
	if n := e.guard.spent(); n != 0 {
		t.Fatalf("%d spends before any tools/call", n)
	}

	for i, want := range []string{"1", "0"} {
		resp := e.post(h, toolCall(10+i, toolSearch, `{"keywords":"sql"}`))
		if resp.Header.Get("RateLimit-Limit") != "2" || resp.Header.Get("RateLimit-Remaining") != want || resp.Header.Get("RateLimit-Reset") != "3600" {
			t.Errorf("call %d: headers %v", i, resp.Header)
		}
		if res, _ := decodeToolResult(t, readRPC(t, resp, http.StatusOK)); res.IsError {
			t.Errorf("call %d failed", i)
		}
	}

	resp := e.post(h, toolCall(20, toolDetail, `{"mcp_id":"`+e.index.entries[0].ID+`"}`))
	if resp.Header.Get("Retry-After") != "721" || resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("limited: headers %v", resp.Header)
	}
	res, text := decodeToolResult(t, readRPC(t, resp, http.StatusOK))
	errObj, _ := text["error"].(map[string]any)
	if !res.IsError || text["success"] != false || errObj["code"] != "rate_limited" || text["retry_after_seconds"] != 721.0 ||
		!strings.Contains(errObj["message"].(string), "Retry in 12m1s") {
		t.Errorf("limited call: %v", text)
	}
	validate(t, detailOutputSchema, res.StructuredContent)

	if resp := e.do(http.MethodDelete, e.url, hdr{"Authorization": keyLimited, "Mcp-Session-Id": sid}, ""); resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if n := e.guard.spent(); n != 3 {
		t.Errorf("%d spends, want 3 (the tools/calls)", n)
	}

	t.Run("unlimited keys get no headers", func(t *testing.T) {
		resp := e.post(jsonHeaders(keyUnlimited, nil), toolCall(1, toolSearch, `{"keywords":"sql"}`))
		if resp.Header.Get("RateLimit-Limit") != "" {
			t.Errorf("headers %v", resp.Header)
		}
		if res, _ := decodeToolResult(t, readRPC(t, resp, http.StatusOK)); res.IsError {
			t.Error("call failed")
		}
	})
	// Over the budget a call answers 200 with a tool result the model reads,
	// not the 401 that makes MCP clients start an OAuth flow (docs/mcp.md),
	// on every path: the sessionless fast path, the SDK's stateless handler.
	for _, accept := range []string{"application/json", "text/event-stream"} {
		resp := e.post(jsonHeaders(keyLimited, hdr{"Accept": accept}), toolCall(30, toolSearch, `{"keywords":"sql"}`))
		if resp.Header.Get("Retry-After") != "721" || resp.Header.Get("RateLimit-Remaining") != "0" {
			t.Errorf("%s: headers %v", accept, resp.Header)
		}
		res, text := decodeToolResult(t, readRPC(t, resp, http.StatusOK))
		if errObj, _ := text["error"].(map[string]any); !res.IsError || errObj["code"] != "rate_limited" {
			t.Errorf("%s: %v", accept, text)
		}
	}
	t.Run("a forged ticket is overwritten", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"sql"},"_meta":{"mcpdir/budget-ticket":"forged"}}}`
		res, _ := decodeToolResult(t, readRPC(t, e.post(jsonHeaders(keyLimited, nil), body), http.StatusOK))
		if !res.IsError {
			t.Error("a forged ticket got past an exhausted budget")
		}
	})
}

func TestOrigin(t *testing.T) {
	e := newEnv(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, origin := range []string{"https://evil.example.com", "null", "http://app.example.com"} {
		wantRPCError(t, e.post(jsonHeaders(keyA, hdr{"Origin": origin}), body), http.StatusForbidden, codeForbidden, "forbidden")
	}
	for _, origin := range []string{"", "https://app.example.com", "https://APP.example.com", e.srv.URL} {
		resp := e.post(jsonHeaders(keyA, hdr{"Origin": origin}), body)
		readRPC(t, resp, http.StatusOK)
		if origin != "" && resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("%s: Access-Control-Allow-Origin %q", origin, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	// A foreign origin is refused before the key is looked at.
	wantRPCError(t, e.post(hdr{"Origin": "https://evil.example.com", "Content-Type": "application/json"}, body), http.StatusForbidden, codeForbidden, "forbidden")

	t.Run("preflight", func(t *testing.T) {
		resp := e.do(http.MethodOptions, e.url, hdr{"Origin": "https://app.example.com", "Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "authorization, content-type, mcp-session-id"}, "")
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Headers") != "authorization, content-type, mcp-session-id" ||
			!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
			t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
		}
		wantRPCError(t, e.do(http.MethodOptions, e.url, hdr{"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"}, ""), http.StatusForbidden, codeForbidden, "forbidden")
	})
	t.Run("any origin", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.AllowedOrigins = []string{"*"} })
		readRPC(t, e.post(jsonHeaders(keyA, hdr{"Origin": "https://evil.example.com"}), body), http.StatusOK)
	})
	t.Run("DNS rebinding", func(t *testing.T) {
		resp := e.post(jsonHeaders(keyA, hdr{"Host": "evil.example.com"}), body)
		wantRPCError(t, resp, http.StatusForbidden, codeForbidden, "forbidden")
		readRPC(t, e.post(jsonHeaders(keyA, hdr{"Host": "localhost:1234"}), body), http.StatusOK)
	})
	t.Run("bad settings", func(t *testing.T) {
		for _, o := range []string{"example.com", "https://example.com/path", "https://"} {
			if _, err := NewHandler(Config{Index: e.index, Guard: e.guard, AllowedOrigins: []string{o}}); err == nil {
				t.Errorf("origin %q accepted", o)
			}
		}
		if _, err := NewHandler(Config{Index: e.index}); err == nil {
			t.Error("a Config without a Guard accepted")
		}
	})
}

func TestBounds(t *testing.T) {
	t.Run("body size", func(t *testing.T) {
		e := newEnv(t, nil)
		big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"` + strings.Repeat("a", DefaultMaxBodyBytes) + `"}}}`
		wantRPCError(t, e.post(jsonHeaders(keyA, nil), big), http.StatusRequestEntityTooLarge, codeTransport, "request_too_large")
	})
	t.Run("sessions per key", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.MaxSessionsPerKey = 2 })
		const v = "2025-11-25"
		oldest := e.initialize(keyA, v)
		streaming := e.initialize(keyA, v)
		get := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": streaming}, "")
		newSSEReader(t, get).next()

		// At the cap, a new session evicts the least recently used idle one.
		newest := e.initialize(keyA, v)
		wantRPCError(t, e.post(sessionHeaders(keyA, oldest, v), `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
		readRPC(t, e.post(sessionHeaders(keyA, streaming, v), `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusOK)

		// When every session is busy (here: streams open), it is refused.
		get2 := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": newest}, "")
		newSSEReader(t, get2).next()
		resp := e.post(jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		wantRPCError(t, resp, http.StatusTooManyRequests, codeLimitExceeded, dataTooManySessions)
		if resp.Header.Get("Retry-After") == "" {
			t.Error("no Retry-After")
		}
		// A legacy stream is a session too; another key is not affected.
		wantRPCError(t, e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream"}, ""), http.StatusTooManyRequests, codeLimitExceeded, dataTooManySessions)
		e.initialize(keyB, v)
	})
	t.Run("streams per key", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.MaxStreamsPerKey = 2 })
		for range 2 {
			sid := e.initialize(keyA, "2025-11-25")
			resp := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": sid}, "")
			newSSEReader(t, resp).next()
		}
		sid := e.initialize(keyA, "2025-11-25")
		wantRPCError(t, e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": sid}, ""), http.StatusTooManyRequests, codeLimitExceeded, dataTooManyStreams)
		wantRPCError(t, e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream"}, ""), http.StatusTooManyRequests, codeLimitExceeded, dataTooManyStreams)
	})
	t.Run("idle timeout", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.SessionIdleTimeout = 100 * time.Millisecond })
		idle := e.initialize(keyA, "2025-11-25")
		streaming := e.initialize(keyA, "2025-11-25")
		get := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": streaming}, "")
		newSSEReader(t, get).next()
		// Wait for the janitor (every 25 ms here) without touching the
		// sessions: a request would make them busy again.
		deadline := time.Now().Add(10 * time.Second)
		for e.h.sessions.has(idle) {
			if time.Now().After(deadline) {
				t.Fatal("the idle session did not end")
			}
			time.Sleep(20 * time.Millisecond)
		}
		wantRPCError(t, e.post(sessionHeaders(keyA, idle, "2025-11-25"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusNotFound, codeSessionNotFound, dataSessionNotFound)
		// A session with an open stream is not idle.
		readRPC(t, e.post(sessionHeaders(keyA, streaming, "2025-11-25"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusOK)
	})
	t.Run("close ends streams", func(t *testing.T) {
		e := newEnv(t, nil)
		sid := e.initialize(keyA, "2025-11-25")
		get := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream", "Mcp-Session-Id": sid}, "")
		legacy := e.do(http.MethodGet, e.url, hdr{"Authorization": keyA, "Accept": "text/event-stream"}, "")
		newSSEReader(t, get).next()
		newSSEReader(t, legacy).next()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, r := range []*http.Response{get, legacy} {
				buf := make([]byte, 512)
				for {
					if _, err := r.Body.Read(buf); err != nil {
						break
					}
				}
			}
		}()
		e.h.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("streams still open after Close")
		}
		wantRPCError(t, e.post(jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusServiceUnavailable, codeInternal, "unavailable")
	})
}

// brokenLimiter is a Guard whose budget store is down.
type brokenLimiter struct{ *testGuard }

func (brokenLimiter) Spend(context.Context, *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	return mcpdir.RateDecision{}, errors.New("redis: connection refused at 10.1.2.3:6379")
}

// TestSpendFailure: when the budget cannot be checked the call does not
// run, and the model is told to retry without learning internals.
func TestSpendFailure(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Guard = brokenLimiter{c.Guard.(*testGuard)} })
	resp := e.post(jsonHeaders(keyA, nil), toolCall(1, toolSearch, `{"keywords":"sql"}`))
	if resp.Header.Get("RateLimit-Limit") != "" {
		t.Errorf("rate-limit headers without a decision: %v", resp.Header)
	}
	res, text := decodeToolResult(t, readRPC(t, resp, http.StatusOK))
	errObj, _ := text["error"].(map[string]any)
	if !res.IsError || errObj["code"] != "unavailable" || strings.Contains(res.Content[0].Text, "redis") {
		t.Errorf("result %v", text)
	}
}

// brokenStore is a Guard whose key store is down.
type brokenStore struct{ *testGuard }

func (brokenStore) Authenticate(context.Context, string) (*mcpdir.APIKey, error) {
	return nil, errors.New("sqlite: database is locked (/var/lib/mcpdir/keys.db)")
}

func TestAuthFailure(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Guard = brokenStore{c.Guard.(*testGuard)} })
	r := wantRPCError(t, e.post(jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":1,"method":"ping"}`), http.StatusInternalServerError, codeInternal, "internal")
	if strings.Contains(r.Error.Message, "sqlite") {
		t.Errorf("internals leaked: %q", r.Error.Message)
	}
}
