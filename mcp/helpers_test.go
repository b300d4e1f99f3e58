package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Test keys: the guard accepts them as "Bearer <key>" or bare.
const (
	keyA         = "mcpd_test_a"
	keyB         = "mcpd_test_b"
	keyLimited   = "mcpd_test_limited" // a budget of 2
	keyUnlimited = "mcpd_test_unlimited"
	keyExpired   = "mcpd_test_expired"
	keyRevoked   = "mcpd_test_revoked"
)

// testGuard is a small real Guard: keys in a map, and a counter budget per
// key that never refills.
type testGuard struct {
	keys map[string]*mcpdir.APIKey

	mu     sync.Mutex
	used   map[string]int
	spends int
}

func newTestGuard() *testGuard {
	past := time.Now().Add(-time.Hour)
	k := func(prefix string, limit int) *mcpdir.APIKey {
		return &mcpdir.APIKey{Prefix: prefix, Name: prefix, Scope: mcpdir.ScopeSearch, RateLimit: limit}
	}
	expired, revoked := k("exp", 20), k("rev", 20)
	expired.ExpiresAt, revoked.RevokedAt = past, past
	return &testGuard{
		keys: map[string]*mcpdir.APIKey{
			keyA: k("a", 20), keyB: k("b", 20), keyLimited: k("lim", 2),
			keyUnlimited: k("unl", mcpdir.Unlimited), keyExpired: expired, keyRevoked: revoked,
		},
		used: map[string]int{},
	}
}

func (g *testGuard) Authenticate(_ context.Context, authorization string) (*mcpdir.APIKey, error) {
	token := strings.TrimSpace(authorization)
	if scheme, rest, ok := strings.Cut(token, " "); ok && strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(rest)
	}
	if token == "" {
		return nil, mcpdir.ErrMissingKey
	}
	k := g.keys[token]
	switch {
	case k == nil:
		return nil, mcpdir.ErrInvalidKey
	case k.Revoked():
		return nil, mcpdir.ErrRevokedKey
	case k.Expired(time.Now()):
		return nil, mcpdir.ErrExpiredKey
	}
	return k, nil
}

func (g *testGuard) Spend(_ context.Context, k *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.spends++
	if k.RateLimit == mcpdir.Unlimited {
		return mcpdir.RateDecision{Allowed: true, Limit: mcpdir.Unlimited}, nil
	}
	if g.used[k.Prefix] >= k.RateLimit {
		return mcpdir.RateDecision{Limit: k.RateLimit, Reset: 40 * time.Minute, RetryAfter: 12*time.Minute + 300*time.Millisecond}, nil
	}
	g.used[k.Prefix]++
	return mcpdir.RateDecision{Allowed: true, Limit: k.RateLimit, Remaining: k.RateLimit - g.used[k.Prefix], Reset: time.Hour}, nil
}

func (g *testGuard) Check(k *mcpdir.APIKey) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if k.Revoked() {
		return mcpdir.ErrRevokedKey
	}
	return nil
}

func (g *testGuard) spent() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spends
}

// testIndex is the fixture directory: a few entries, searched by substring.
type testIndex struct{ entries []*mcpdir.Entry }

func newTestIndex() *testIndex {
	e := func(name, brief, url string, tags ...string) *mcpdir.Entry {
		en := &mcpdir.Entry{Name: name, Brief: brief, WebsiteURL: url, Tags: tags,
			Transports: []string{mcpdir.TransportStdio}, Popularity: 7,
			CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), UpdatedAt: time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC)}
		en.ID = mcpdir.EntryID(en.NaturalKey())
		return en
	}
	pg := e("postgres", "Query PostgreSQL databases", "https://github.com/example/postgres-mcp", "database", "sql")
	pg.RepositoryURL = "https://github.com/example/postgres-mcp"
	pg.Title = "PostgreSQL"
	pg.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: "@example/postgres-mcp", Version: "1.2.3"}}
	pg.Tools = []mcpdir.Tool{{Name: "query", Description: "Run a read-only SQL query"}}
	pg.Extra = mcpdir.NewExtra(map[string]json.RawMessage{"stars": json.RawMessage("42")})
	idx := &testIndex{entries: []*mcpdir.Entry{
		pg,
		e("sqlite", "Query SQLite databases", "https://example.com/sqlite-mcp", "database"),
		e("github", "Manage GitHub issues & <pull requests>", "https://github.com/example/github-mcp", "git"),
	}}
	for i := range 120 {
		idx.entries = append(idx.entries, e("filler-"+string(rune('a'+i%26))+strings.Repeat("x", i/26),
			"A filler server for limit tests", "https://example.com/filler/"+strings.Repeat("y", i+1), "filler"))
	}
	return idx
}

// Find matches any word of the query by substring; of filters it knows
// the transport.
func (x *testIndex) Find(q mcpdir.Query) mcpdir.SearchResult {
	query, limit := q.Text, q.Limit
	var res mcpdir.SearchResult
	for _, e := range x.entries {
		if q.Filter.Transport != "" && !slices.Contains(e.Transports, q.Filter.Transport) {
			continue
		}
		text := strings.ToLower(e.Name + " " + e.Brief + " " + strings.Join(e.Tags, " "))
		for w := range strings.FieldsSeq(strings.ToLower(query)) {
			if strings.Contains(text, w) {
				res.Total++
				if len(res.Hits) < limit {
					res.Hits = append(res.Hits, mcpdir.Hit{Entry: e, Score: 1.23456})
				}
				break
			}
		}
	}
	return res
}

// Generation is always the same: the fixture does not change.
func (x *testIndex) Generation() uint64 { return 0 }

func (x *testIndex) Get(id string) (*mcpdir.Entry, bool) {
	i := slices.IndexFunc(x.entries, func(e *mcpdir.Entry) bool { return e.ID == id })
	if i < 0 {
		return nil, false
	}
	return x.entries[i], true
}

// env is a handler behind a real HTTP server on loopback.
type env struct {
	t     *testing.T
	h     *Handler
	srv   *httptest.Server
	url   string
	guard *testGuard
	index *testIndex
}

func newEnv(t *testing.T, tune func(*Config)) *env {
	t.Helper()
	e := &env{t: t, guard: newTestGuard(), index: newTestIndex()}
	cfg := Config{Index: e.index, Guard: e.guard, KeepAliveInterval: time.Hour,
		AllowedOrigins: []string{"https://app.example.com"}}
	if tune != nil {
		tune(&cfg)
	}
	h, err := NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.h = h
	mux := http.NewServeMux()
	mux.Handle("/api/open/mcp", h)
	e.srv = httptest.NewServer(mux)
	e.url = e.srv.URL + "/api/open/mcp"
	t.Cleanup(func() {
		h.Close()
		e.srv.Close()
	})
	return e
}

// hdr is request headers; the zero value sends none.
type hdr map[string]string

// jsonHeaders are what a Streamable HTTP client sends with a POST.
func jsonHeaders(key string, more hdr) hdr {
	h := hdr{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	for k, v := range more {
		h[k] = v
	}
	return h
}

func (e *env) do(method, url string, h hdr, body string) *http.Response {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	e.t.Cleanup(cancel)
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (e *env) post(h hdr, body string) *http.Response { return e.do(http.MethodPost, e.url, h, body) }

// rpcResp is a JSON-RPC response as tests read it.
type rpcResp struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    struct {
			Code      string   `json:"code"`
			Supported []string `json:"supported"`
		} `json:"data"`
	} `json:"error"`
}

// readRPC reads the one JSON-RPC response of a POST, answered as JSON or
// SSE, and checks the content type and status.
func readRPC(t *testing.T, resp *http.Response, status int) rpcResp {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, body)
	}
	ct := resp.Header.Get("Content-Type")
	var r rpcResp
	switch {
	case strings.HasPrefix(ct, "application/json"):
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("body %s: %v", body, err)
		}
	case strings.HasPrefix(ct, "text/event-stream"):
		for _, ev := range parseSSE(string(body)) {
			if ev.event == "message" && json.Unmarshal([]byte(ev.data), &r) == nil && r.ID != nil {
				return r
			}
		}
		t.Fatalf("no response in event stream %q", body)
	default:
		t.Fatalf("Content-Type %q, body %s", ct, body)
	}
	if r.JSONRPC != "2.0" {
		t.Fatalf("not a JSON-RPC response: %s", body)
	}
	return r
}

// wantRPCError checks a JSON-RPC error response.
func wantRPCError(t *testing.T, resp *http.Response, status, code int, dataCode string) rpcResp {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	r := readRPC(t, resp, status)
	if r.Error == nil {
		t.Fatalf("no error in %+v", r)
	}
	if r.Error.Code != code || r.Error.Data.Code != dataCode {
		t.Errorf("error %d %q (%s), want %d %q", r.Error.Code, r.Error.Data.Code, r.Error.Message, code, dataCode)
	}
	if r.Error.Message == "" {
		t.Error("empty error message")
	}
	return r
}

type sseEvent struct{ event, data, id string }

func parseSSE(s string) []sseEvent {
	var out []sseEvent
	for block := range strings.SplitSeq(s, "\n\n") {
		var ev sseEvent
		for line := range strings.SplitSeq(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			}
		}
		if ev.event != "" || ev.data != "" {
			out = append(out, ev)
		}
	}
	return out
}

// sseReader reads a live event stream line by line.
type sseReader struct {
	t  *testing.T
	sc *bufio.Scanner
}

func newSSEReader(t *testing.T, resp *http.Response) *sseReader {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &sseReader{t: t, sc: sc}
}

// next returns the next event, or a comment as event ":" with its text.
func (r *sseReader) next() sseEvent {
	r.t.Helper()
	var ev sseEvent
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				return ev
			}
		case strings.HasPrefix(line, ":"):
			ev.event, ev.data = ":", strings.TrimSpace(strings.TrimPrefix(line, ":"))
		case strings.HasPrefix(line, "event: "):
			ev.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		}
	}
	r.t.Fatalf("stream ended: %v", r.sc.Err())
	return ev
}

// initialize opens a Streamable HTTP session and returns its id.
func (e *env) initialize(key, version string) string {
	e.t.Helper()
	resp := e.post(jsonHeaders(key, nil), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	r := readRPC(e.t, resp, http.StatusOK)
	if r.Error != nil {
		e.t.Fatalf("initialize: %+v", r.Error)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		e.t.Fatal("initialize: no Mcp-Session-Id")
	}
	resp = e.post(jsonHeaders(key, hdr{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": version}), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("initialized: status %d", resp.StatusCode)
	}
	return sid
}

// sessionHeaders are a session's POST headers.
func sessionHeaders(key, sid, version string) hdr {
	return jsonHeaders(key, hdr{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": version})
}

// toolCall is a tools/call body.
func toolCall(id int, name, args string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": json.RawMessage(args)}})
	return string(b)
}

// toolResult is a tools/call result as tests read it.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func decodeToolResult(t *testing.T, r rpcResp) (toolResult, map[string]any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("tools/call error: %+v", r.Error)
	}
	var res toolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("content %+v", res.Content)
	}
	var text, structured map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].Text), &text); err != nil {
		t.Fatalf("content text is not JSON: %v", err)
	}
	if err := json.Unmarshal(res.StructuredContent, &structured); err != nil {
		t.Fatalf("structuredContent: %v", err)
	}
	// The text is the structured content, with search items cut down to
	// the lean fields a model reads.
	if items, ok := structured["data"].([]any); ok {
		lean := make([]any, len(items))
		for i, it := range items {
			full := it.(map[string]any)
			l := map[string]any{}
			for _, k := range []string{"id", "name", "brief", "website_url", "transports"} {
				l[k] = full[k]
			}
			if title, ok := full["title"]; ok { // where the record has one
				l["title"] = title
			}
			lean[i] = l
		}
		want := maps.Clone(structured)
		want["data"] = lean
		a, _ := json.Marshal(text)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("text %s is not the lean form of structuredContent %s", a, b)
		}
		return res, structured
	}
	a, _ := json.Marshal(text)
	b, _ := json.Marshal(structured)
	if string(a) != string(b) {
		t.Errorf("structuredContent %s differs from the text %s", b, a)
	}
	return res, text
}
