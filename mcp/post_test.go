package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/starter"
)

// The calls answered without the SDK (direct.go) get, era by era and for
// every Accept, the answer the SDK gives the same request: the same
// status, headers and body, byte for byte. The reference is a handler with
// the direct answers turned off; a tripwire in front of the SDK's handlers
// proves that the direct handler did answer the calls it should.
func TestDirectMatchesSDK(t *testing.T) {
	// Searches answered directly, encoded from the items each time; and
	// with answers kept encoded, each call sent in several forms answered
	// from the first's.
	t.Run("encoded each time", func(t *testing.T) { directMatchesSDK(t, 0) })
	t.Run("answers kept", func(t *testing.T) { directMatchesSDK(t, 1<<20) })
}

func directMatchesSDK(t *testing.T, answerCacheBytes int) {
	fast := newEnv(t, func(c *Config) { c.AnswerCacheBytes = answerCacheBytes })
	ref := newEnv(t, nil)
	ref.h.direct = false
	var leaked []string
	var mu sync.Mutex
	tripwire := func(next http.Handler) http.Handler {
		return &tripwire{next: next, seen: func(body string) {
			if strings.Contains(body, `"tools/`) {
				mu.Lock()
				leaked = append(leaked, body)
				mu.Unlock()
			}
		}}
	}
	fast.h.stateless, fast.h.stateful = tripwire(fast.h.stateless), tripwire(fast.h.stateful)

	id := fast.index.entries[0].ID
	type call struct {
		method, name, params string
		sdk                  bool // the direct handler passes it to the SDK
		modern               bool // a 2026-07-28 call with its own _meta
	}
	const caps = `"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}`
	const version = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	calls := []call{
		{"tools/call", toolSearch, `"arguments":{"keywords":"sql"}`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"filler","limit":3}`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"filler","limit":0}`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"zzzz nothing"}`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"a\u001bb"}`, false, false},
		{"tools/call", toolSearch, `"arguments":{}`, false, false},
		{"tools/call", toolSearch, `"arguments":"not an object"`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"<script>&\"quoted\" é \u2028"}`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"sql","transport":"pigeon"}`, false, false},
		{"tools/call", toolDetail, `"arguments":{"mcp_id":"` + id + `"}`, false, false},
		{"tools/call", toolDetail, `"arguments":{"mcp_id":"nope"}`, false, false},
		{"tools/call", toolDetail, `"arguments":{"mcp_id":"` + fast.index.entries[2].ID + `"}`, false, false}, // <, > and & in its brief
		{"tools/call", toolSearch, `"arguments":{"keywords":"github"},"_meta":{"progressToken":"p1"}`, false, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"github"},"_meta":"not an object"`, true, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"sql"},"task":{"ttl":1000}`, true, false},
		{"tools/call", "nope", `"arguments":{}`, true, false},
		{"tools/list", "", ``, false, false},
		{"tools/list", "", `"cursor":"abc"`, true, false},
		{"tools/call", toolSearch, `"arguments":{"keywords":"sql"},"_meta":{` + version + `,` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"debug","progressToken":1}`, false, true},
		{"tools/call", toolSearch, `"arguments":{"keywords":"sql"},"_meta":{` + version + `,"io.modelcontextprotocol/clientCapabilities":{"roots":5}}`, true, true},
		{"tools/call", toolSearch, `"arguments":{"keywords":"sql"},"_meta":{` + version + `,` + caps + `,"io.modelcontextprotocol/clientInfo":"me"}`, true, true},
		{"tools/list", "", `"_meta":{` + version + `,` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`, false, true},
	}
	type era struct {
		name    string
		headers func(e *env, method, name string) hdr
		meta    string
	}
	sessions := map[*env]string{fast: fast.initialize(keyUnlimited, "2025-11-25"), ref: ref.initialize(keyUnlimited, "2025-11-25")}
	eras := []era{
		{"sessionless", func(e *env, _, _ string) hdr {
			return jsonHeaders(keyUnlimited, hdr{"Mcp-Protocol-Version": "2025-06-18"})
		}, ``},
		{"session 2025-11-25", func(e *env, _, _ string) hdr { return sessionHeaders(keyUnlimited, sessions[e], "2025-11-25") }, ``},
		{"2026-07-28", func(e *env, method, name string) hdr { return modernHeaders(keyUnlimited, method, name) }, modernMeta},
	}
	n := 0
	for _, era := range eras {
		for _, accept := range []string{"application/json, text/event-stream", "application/json", "text/event-stream"} {
			for _, c := range calls {
				if c.modern != (era.meta != "" && strings.Contains(c.params, "_meta")) {
					continue // a call with a _meta of its own, in its era
				}
				for _, id := range []string{"7", `"req-7"`} {
					n++
					params := c.params
					if c.name != "" {
						params = `"name":"` + c.name + `"` + cond(params != "", ",", "") + params
					}
					if era.meta != "" && !c.modern {
						params += cond(params != "", ",", "") + era.meta
					}
					body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + c.method + `","params":{` + params + `}}`
					mu.Lock()
					leaked = nil
					mu.Unlock()
					answer := func(e *env, accept string) (*http.Response, string) {
						h := era.headers(e, c.method, c.name)
						h["Accept"] = accept
						resp := e.post(h, body)
						b, _ := io.ReadAll(resp.Body)
						return resp, string(b)
					}
					got, gotBody := answer(fast, accept)
					// Sessionless answers are JSON for a client that takes
					// JSON (docs/mcp.md): the SDK's, collected from its stream.
					want, wantBody := answer(ref, cond(era.name == "sessionless" && !c.sdk && accept != "text/event-stream", "application/json", accept))
					what := era.name + ", Accept " + accept + ": " + body
					if got.StatusCode != want.StatusCode || gotBody != wantBody {
						t.Errorf("%s\n direct %d %s\n    SDK %d %s", what, got.StatusCode, firstDiff(gotBody, wantBody), want.StatusCode, firstDiff(wantBody, gotBody))
					}
					for _, name := range []string{"Content-Type", "Cache-Control", "Connection", "Mcp-Session-Id", "RateLimit-Limit", "X-Content-Type-Options"} {
						if got.Header.Get(name) != want.Header.Get(name) {
							t.Errorf("%s\n %s: direct %q, SDK %q", what, name, got.Header.Get(name), want.Header.Get(name))
						}
					}
					if !c.sdk && (want.StatusCode != http.StatusOK || !strings.Contains(wantBody, `"result"`)) {
						t.Errorf("%s: the SDK did not answer a result: %d %s", what, want.StatusCode, wantBody)
					}
					mu.Lock()
					if took := len(leaked) > 0; took != c.sdk {
						t.Errorf("%s: reached the SDK %v, want %v", what, took, c.sdk)
					}
					mu.Unlock()
				}
			}
		}
	}
	t.Logf("%d requests compared", n)
}

// tripwire passes requests on to an SDK handler, showing their bodies to
// seen. (A pointer: the handler compares its SDK handlers.)
type tripwire struct {
	next http.Handler
	seen func(body string)
}

func (tw *tripwire) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	tw.seen(string(body))
	tw.next.ServeHTTP(w, r)
}

// firstDiff is a where a differs from b first, and around it.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("(%d bytes) at %d: %q", len(a), i, a[max(0, i-60):min(len(a), i+60)])
}

func cond(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// starterIndex is the starter directory indexed, and its entries, their
// ids as a store gives them.
func starterIndex(b *testing.B) (*search.Index, []*mcpdir.Entry) {
	entries, err := starter.Entries()
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		e.ID = mcpdir.EntryID(e.NaturalKey())
	}
	idx := search.New()
	idx.Upsert(entries...)
	return idx, entries
}

// BenchmarkToolsCall measures a search_mcp call in each era, and a
// get_mcp_detail and a tools/list, answered directly, beside the same
// calls through the SDK's handlers (a session connected, served and
// closed per sessionless or 2026-07-28 request), over the starter
// directory, in one run. Nothing is kept: every call searches and
// encodes its answer.
func BenchmarkToolsCall(b *testing.B) {
	idx, entries := starterIndex(b)
	idx.SetResultCache(0)
	newHandler := func(direct bool) *Handler {
		h, err := NewHandler(Config{Index: idx, Guard: newTestGuard()})
		if err != nil {
			b.Fatal(err)
		}
		h.direct = direct
		b.Cleanup(h.Close)
		return h
	}
	fast, viaSDK := newHandler(true), newHandler(false)
	serve := func(h *Handler, hdr map[string]string, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/api/open/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+keyUnlimited)
		r.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	initialize := serve(fast, map[string]string{"Accept": "application/json, text/event-stream"},
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	sid := initialize.Header().Get("Mcp-Session-Id")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"database"}}}`
	modernCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"database"},` + modernMeta + `}}`
	detail := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_mcp_detail","arguments":{"mcp_id":"` + entries[0].ID + `"},` + modernMeta + `}}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}`
	both := "application/json, text/event-stream"
	modern := func(method, name string) map[string]string {
		return map[string]string{"Accept": both, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": name}
	}
	for _, c := range []struct {
		name string
		h    *Handler
		hdr  map[string]string
		body string
	}{
		{"sdk-sessionless", viaSDK, map[string]string{"Accept": both, "Mcp-Protocol-Version": "2025-06-18"}, call},
		{"sessionless", fast, map[string]string{"Accept": "application/json", "Mcp-Protocol-Version": "2025-06-18"}, call},
		{"session-2025-11-25", fast, map[string]string{"Accept": both, "Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": sid}, call},
		{"stateless-2026-07-28", fast, modern("tools/call", toolSearch), modernCall},
		{"sdk-stateless-2026-07-28", viaSDK, modern("tools/call", toolSearch), modernCall},
		{"get_mcp_detail-2026-07-28", fast, modern("tools/call", toolDetail), detail},
		{"sdk-get_mcp_detail-2026-07-28", viaSDK, modern("tools/call", toolDetail), detail},
		{"tools-list-2026-07-28", fast, modern("tools/list", ""), list},
		{"sdk-tools-list-2026-07-28", viaSDK, modern("tools/list", ""), list},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := serve(c.h, c.hdr, c.body)
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result":{`) || strings.Contains(w.Body.String(), `"isError"`) {
					b.Fatalf("%d %.300s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkPostKept measures what the endpoint spends around a search
// that is not done again: a search_mcp call in each era, its answer kept
// (as a server keeps it), the request made once and its body rewound, the
// answer discarded. What is left is the endpoint's own work: reading the
// body, routing, the session, the arguments, writing the answer (issue
// 36: MCP beside REST).
func BenchmarkPostKept(b *testing.B) {
	idx, _ := starterIndex(b)
	h, err := NewHandler(Config{Index: idx, Guard: newTestGuard(), AnswerCacheBytes: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(h.Close)
	local := context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	request := func(hdr map[string]string, body string) (*http.Request, *bytes.Reader) {
		rd := bytes.NewReader([]byte(body))
		r := httptest.NewRequestWithContext(local, http.MethodPost, "/api/open/mcp", rd)
		r.Host = "127.0.0.1:8080"
		r.Header.Set("Authorization", "Bearer "+keyUnlimited)
		r.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		return r, rd
	}
	both := "application/json, text/event-stream"
	init, _ := request(map[string]string{"Accept": both}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, init)
	sid := w.Header().Get("Mcp-Session-Id")
	initialized, _ := request(map[string]string{"Accept": both, "Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.ServeHTTP(httptest.NewRecorder(), initialized)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"database"}`
	for _, c := range []struct {
		name string
		hdr  map[string]string
		body string
	}{
		{"sessionless", map[string]string{"Accept": "application/json", "Mcp-Protocol-Version": "2025-06-18"}, call + `}}`},
		{"session-2025-11-25", map[string]string{"Accept": both, "Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": sid}, call + `}}`},
		{"stateless-2026-07-28", map[string]string{"Accept": both, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": toolSearch}, call + `,` + modernMeta + `}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			r, body := request(c.hdr, c.body)
			w := &sink{header: http.Header{}}
			h.ServeHTTP(w, r) // the answer kept
			if w.status != http.StatusOK || w.n < 1000 {
				b.Fatalf("%d, %d bytes", w.status, w.n)
			}
			b.ReportAllocs()
			for b.Loop() {
				body.Seek(0, io.SeekStart)
				r.Body = io.NopCloser(body)
				clear(w.header)
				h.ServeHTTP(w, r)
			}
		})
	}
}

// sink is a ResponseWriter that keeps only the status and the count of
// bytes.
type sink struct {
	header http.Header
	status int
	n      int
}

func (d *sink) Header() http.Header         { return d.header }
func (d *sink) WriteHeader(status int)      { d.status = status }
func (d *sink) Write(p []byte) (int, error) { d.n = len(p); return len(p), nil }
