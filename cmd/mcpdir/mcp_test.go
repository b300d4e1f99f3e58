package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds the Authorization header to every request, as MCP
// clients configured with headers do.
type headerTransport struct{ authorization string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", h.authorization)
	return http.DefaultTransport.RoundTrip(r)
}

func connectMCP(t *testing.T, s *testServer, authorization string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:   s.URL + "/api/open/mcp",
		HTTPClient: &http.Client{Transport: headerTransport{authorization}},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The MCP endpoint of the real server finds what REST finds, and its ids
// lead to the full record.
func TestMCPSearchAndDetailOnRealServer(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	cs := connectMCP(t, s, key) // the bare key, as the spec's client example sends it
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "postgres", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search_mcp: %v %+v", err, res)
	}
	var found struct {
		Success bool `json:"success"`
		Count   int  `json:"count"`
		Data    []struct {
			ID, Name, Brief, WebsiteURL string
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &found); err != nil || !found.Success || found.Count != 3 {
		t.Fatalf("search_mcp text: %v %+v", err, found)
	}
	rest := s.search(t, key, "postgres")
	if found.Data[0].ID != rest.Data[0].ID {
		t.Fatalf("MCP and REST disagree on the best hit: %s vs %s", found.Data[0].Name, rest.Data[0].Name)
	}

	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_mcp_detail", Arguments: map[string]any{"mcp_id": found.Data[0].ID}})
	if err != nil || res.IsError {
		t.Fatalf("get_mcp_detail: %v %+v", err, res)
	}
	var detail struct {
		Success bool `json:"success"`
		Data    struct {
			ID, UUID, Name, Description string
			Packages                    []map[string]any
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &detail); err != nil || !detail.Success ||
		detail.Data.ID != found.Data[0].ID || detail.Data.UUID != detail.Data.ID || detail.Data.Description == "" || len(detail.Data.Packages) == 0 {
		t.Fatalf("detail: %v %+v", err, detail)
	}
}

// One budget per key, shared by REST and MCP tools/call; handshakes and
// tools/list do not spend it.
func TestBudgetSharedAcrossInterfaces(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir) // 20 per hour
	cs := connectMCP(t, s, "Bearer "+key)
	ctx := context.Background()
	for range 5 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "git"}})
		if err != nil || res.IsError {
			t.Fatalf("MCP call %d: %v %+v", i, err, res)
		}
	}
	for i := range 10 {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != strconv.Itoa(9-i) {
			t.Fatalf("REST call %d after 10 MCP calls: %d remaining %s", i, resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
		}
	}
	// Both interfaces now refuse: REST with 401 rate_limited, MCP with a tool
	// error that says when to retry.
	resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
	if body := decode[errorBody](t, resp); resp.StatusCode != 401 || body.Error.Code != "rate_limited" {
		t.Fatalf("REST after 20: %d %+v", resp.StatusCode, body)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "git"}})
	if err != nil || !res.IsError || !strings.Contains(strings.ToLower(res.Content[0].(*sdk.TextContent).Text), "retry") {
		t.Fatalf("MCP after 20: %v %+v", err, res)
	}
	// Still free: listing tools.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list after the budget is spent: %v", err)
	}
}

// A request without a key is refused with 401, a JSON-RPC body and
// WWW-Authenticate, by the real server's key store.
func TestMCPRefusesMissingAndRevokedKeys(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	cli(t, s.DataDir, "keys", "revoke", key[:13])
	list := func(auth string) (*http.Response, []byte) {
		req, _ := http.NewRequest("POST", s.URL+"/api/open/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, body
	}
	// The revocation reaches the server through the change feed (a
	// loaded machine can take a moment past its interval).
	waitFor(t, 5*time.Second, "the revocation seen", func() bool {
		resp, _ := list("Bearer " + key)
		return resp.StatusCode != http.StatusOK
	})
	for _, auth := range []string{"", "Bearer " + key} {
		resp, body := list(auth)
		var rpc struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code int `json:"code"`
				Data struct {
					Code string `json:"code"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &rpc); err != nil || resp.StatusCode != 401 || rpc.JSONRPC != "2.0" || rpc.Error.Code == 0 ||
			!strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("auth %q: %d %s", auth, resp.StatusCode, body)
		}
		want := map[bool]string{true: "missing_key", false: "revoked_key"}[auth == ""]
		if rpc.Error.Data.Code != want {
			t.Fatalf("auth %q: data.code %q, want %q", auth, rpc.Error.Data.Code, want)
		}
	}
}

// At the default level, a request writes one log line, its access line,
// whatever the MCP traffic: the SDK's info lines (session connected,
// initialized, ended) are kept for debug.
func TestMCPLogsQuietAtInfo(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	// The lines after a marked request's are this test's (the log is
	// written a moment after each request).
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/healthz", nil)
	req.Header.Set("X-Request-Id", "before-the-mcp-traffic")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	waitFor(t, 5*time.Second, "the marked access line", func() bool {
		return strings.Contains(s.stderr.String(), "before-the-mcp-traffic")
	})
	before := len(strings.Split(s.stderr.String(), "\n"))
	for range 5 {
		cs := connectMCP(t, s, "Bearer "+key) // initialize, a session, tools
		if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "github"}}); err != nil {
			t.Fatal(err)
		}
		cs.Close()
		for _, accept := range []string{"application/json", "text/event-stream"} { // fast path and SDK
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/open/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"slack"}}}`))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", accept)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	access := 0
	waitFor(t, 5*time.Second, "the access lines of 10 requests", func() bool {
		lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")[before-1:]
		access = 0
		for _, l := range lines {
			if strings.Contains(l, `"msg":"request"`) {
				access++
			}
		}
		return access >= 10
	})
	for _, l := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n")[before-1:] {
		if !strings.Contains(l, `"msg":"request"`) {
			t.Errorf("a line that is not an access line: %s", l)
		}
	}
}

// A key revoked with the CLI while its event streams are open: the server
// closes them within a few seconds (the change feed, then the streams'
// key check every second), a Streamable HTTP session's and a legacy one.
func TestRevocationClosesOpenStreams(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	mcpRequest := func(method, body string, headers ...string) *http.Response {
		req, _ := http.NewRequest(method, s.URL+"/api/open/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", method, err, resp)
		}
		return resp
	}
	streamClosed := func(resp *http.Response) chan time.Time {
		done := make(chan time.Time, 1)
		go func() {
			io.Copy(io.Discard, resp.Body)
			done <- time.Now()
		}()
		return done
	}
	init := mcpRequest(http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	io.Copy(io.Discard, init.Body)
	sid := init.Header.Get("Mcp-Session-Id")
	sessionDone := streamClosed(mcpRequest(http.MethodGet, "", "Accept", "text/event-stream", "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18"))
	legacyDone := streamClosed(mcpRequest(http.MethodGet, "", "Accept", "text/event-stream"))

	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cli(t, s.DataDir, "keys", "revoke", key[:13])
	for name, done := range map[string]chan time.Time{"legacy SSE stream": legacyDone, "Streamable HTTP session's stream": sessionDone} {
		select {
		case at := <-done:
			t.Logf("%s closed %v after the revocation", name, at.Sub(start).Round(time.Millisecond))
		case <-time.After(5 * time.Second):
			t.Errorf("%s still open 5 s after the revocation", name)
		}
	}
}
