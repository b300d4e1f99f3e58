package livecheck_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/netguard"
)

// testTimeout bounds every check of these tests.
const testTimeout = 2 * time.Second

func checker(allowPrivate bool) *livecheck.Checker {
	return &livecheck.Checker{Guard: netguard.New(netguard.Options{AllowPrivate: allowPrivate}), Timeout: testTimeout, Version: "test"}
}

// mcpServer is a real MCP server (the go-sdk's) with two tools, one of
// them described in hostile text.
func mcpServer() *sdk.Server { return mcpServerOf(nil) }

// mcpServerOf is mcpServer with options (the protocol versions it speaks).
func mcpServerOf(opts *sdk.ServerOptions) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1.0.0"}, opts)
	type in struct {
		City string `json:"city"`
	}
	handler := func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	}
	sdk.AddTool(s, &sdk.Tool{Name: "forecast", Description: "The weather\x1b[31m for a city\n<script>alert(1)</script>" + strings.Repeat(" long", mcpdir.MaxToolDescription/4)}, handler)
	sdk.AddTool(s, &sdk.Tool{Name: "alerts", Description: "Severe weather alerts"}, handler)
	return s
}

func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func streamable(t *testing.T) string {
	s := mcpServer()
	return serve(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
}

func check(t *testing.T, c *livecheck.Checker, url, transport string) livecheck.Result {
	t.Helper()
	start := time.Now()
	res := c.Check(t.Context(), mcpdir.Remote{URL: url, Transport: transport})
	if took := time.Since(start); took > testTimeout+time.Second {
		t.Errorf("%s: the check took %s, past its timeout of %s", url, took, testTimeout)
	}
	if res.URL != url || res.CheckedAt.IsZero() || res.Latency <= 0 {
		t.Errorf("%s: result %+v lacks the URL, time or latency", url, res)
	}
	return res
}

func wantUp(t *testing.T, res livecheck.Result) {
	t.Helper()
	if res.Status != mcpdir.LiveUp {
		t.Fatalf("status %s (%s), want up", res.Status, res.Reason)
	}
	if len(res.Tools) != 2 || res.Tools[0].Name != "alerts" && res.Tools[1].Name != "alerts" {
		t.Fatalf("tools %+v", res.Tools)
	}
	if res.ProtocolVersion == "" {
		t.Error("no protocol version")
	}
	for _, tool := range res.Tools {
		if strings.ContainsAny(tool.Description, "\x1b\n") || len(tool.Description) > mcpdir.MaxToolDescription ||
			tool.Name == "forecast" && !slices.Contains(tool.Cut, "description") {
			t.Errorf("tool %s kept its control characters or length: %q", tool.Name, tool.Description)
		}
	}
}

func TestStreamableHTTPServerIsUp(t *testing.T) {
	s := mcpServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	var agents sync.Map
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents.Store(r.UserAgent(), true)
		h.ServeHTTP(w, r)
	}))
	res := check(t, checker(true), url, mcpdir.TransportStreamableHTTP)
	agents.Range(func(k, _ any) bool {
		if k != "mcpdir-check/test" {
			t.Errorf("User-Agent %q", k)
		}
		return true
	})
	wantUp(t, res)
	if res.ProtocolVersion < "2025-03-26" {
		t.Errorf("protocol version %s: the newest revision both speak is not the one used", res.ProtocolVersion)
	}
}

// The 2024-11-05 transport: an event stream (GET) and POSTs to the
// endpoint it names.
func TestLegacySSEServerIsUp(t *testing.T) {
	s := mcpServer()
	url := serve(t, sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil))
	wantUp(t, check(t, checker(true), url, mcpdir.TransportSSE))
}

func TestSignInRequired(t *testing.T) {
	for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The metadata it names answers 401 too: sign-in stays unknown.
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "sign in", code)
		}))
		for _, transport := range []string{mcpdir.TransportStreamableHTTP, mcpdir.TransportSSE} {
			if res := check(t, checker(true), url, transport); res.Status != mcpdir.LiveAuthRequired || len(res.Tools) != 0 ||
				res.Auth == nil || !reflect.DeepEqual(*res.Auth, mcpdir.LiveAuth{}) {
				t.Errorf("%d over %s: %s (%s), auth %+v, want auth_required, sign-in unknown", code, transport, res.Status, res.Reason, res.Auth)
			}
		}
	}
}

func TestDown(t *testing.T) {
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/mcp"
	}()
	// A server that accepts connections and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	var held sync.WaitGroup
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held.Go(func() { io.Copy(io.Discard, c); c.Close() })
		}
	}()
	for _, c := range []struct {
		name, url, reason string
	}{
		{"an HTML page", serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<!doctype html><title>Welcome</title><p>Our product")
		})), ""},
		{"a 503", serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		})), "HTTP 503"},
		{"JSON that is not MCP", serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"hello":"world"}`)
		})), ""},
		{"a closed port", closed, ""},
		{"a server that never answers", "http://" + silent.Addr().String() + "/mcp", "no answer within"},
	} {
		for _, transport := range []string{mcpdir.TransportStreamableHTTP, mcpdir.TransportSSE} {
			res := check(t, checker(true), c.url, transport)
			if res.Status != mcpdir.LiveDown || !strings.Contains(res.Reason, c.reason) || res.Reason == "" {
				t.Errorf("%s over %s: %s (%q), want down (%q)", c.name, transport, res.Status, res.Reason, c.reason)
			}
		}
	}
}

// An endless answer is cut at the byte bound, long before the timeout.
func TestAnswersAreBounded(t *testing.T) {
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := []byte("data: " + strings.Repeat("x", 4000) + "\n")
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	c := checker(true)
	c.MaxBytes = 64 << 10
	start := time.Now()
	res := check(t, c, url, mcpdir.TransportStreamableHTTP)
	if res.Status != mcpdir.LiveDown || !strings.Contains(res.Reason, "larger than 65536 bytes") {
		t.Fatalf("%s (%s), want down for size", res.Status, res.Reason)
	}
	if took := time.Since(start); took > testTimeout/2 {
		t.Errorf("took %s: the bound did not cut the answer", took)
	}
}

// redirects answers /hop/N with a 307 to /hop/N-1, and /hop/0 as an MCP
// server.
func redirects(t *testing.T) string {
	s := mcpServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
		if n == 0 {
			h.ServeHTTP(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusTemporaryRedirect)
	}))
}

func TestRedirectChains(t *testing.T) {
	base := redirects(t)
	wantUp(t, check(t, checker(true), base+"/hop/3", mcpdir.TransportStreamableHTTP))
	res := check(t, checker(true), base+"/hop/4", mcpdir.TransportStreamableHTTP)
	if res.Status != mcpdir.LiveDown || !strings.Contains(res.Reason, "redirects") {
		t.Fatalf("four redirects: %s (%s), want down", res.Status, res.Reason)
	}
}

// Without AllowPrivate, a server on loopback is refused, never reached,
// and not marked up or auth_required; so is one a redirect leads to.
func TestPrivateAddressesAreRefused(t *testing.T) {
	var reached sync.Mutex
	hits := 0
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Lock()
		hits++
		reached.Unlock()
		http.Error(w, "sign in", http.StatusUnauthorized)
	}))
	for _, u := range []string{url, strings.Replace(url, "127.0.0.1", "localhost", 1), "http://[::ffff:127.0.0.1]:1/mcp", "http://169.254.169.254/mcp"} {
		for _, transport := range []string{mcpdir.TransportStreamableHTTP, mcpdir.TransportSSE} {
			res := check(t, checker(false), u, transport)
			if res.Status != mcpdir.LiveDown || !strings.Contains(res.Reason, "refused") {
				t.Errorf("%s over %s: %s (%s), want down, refused", u, transport, res.Status, res.Reason)
			}
		}
	}
	reached.Lock()
	defer reached.Unlock()
	if hits != 0 {
		t.Fatalf("the loopback server was reached %d times", hits)
	}
}

type memStore struct {
	mu     sync.Mutex
	checks map[string]*mcpdir.LiveCheck
}

func (m *memStore) RecordLiveCheck(_ context.Context, id string, c *mcpdir.LiveCheck) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id == "gone" {
		return mcpdir.ErrNotFound
	}
	m.checks[id] = c
	return nil
}

func TestRunRecordsAndCounts(t *testing.T) {
	up := streamable(t)
	auth := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	down := serve(t, http.NotFoundHandler())
	var targets []livecheck.Target
	for i, u := range []string{up, up, auth, down, down, down, up} {
		targets = append(targets, livecheck.Target{ID: fmt.Sprint(i), Name: fmt.Sprint("server ", i), Remote: mcpdir.Remote{URL: u, Transport: mcpdir.TransportStreamableHTTP}})
	}
	targets = append(targets, livecheck.Target{ID: "gone", Remote: mcpdir.Remote{URL: up, Transport: mcpdir.TransportStreamableHTTP}})
	store := &memStore{checks: map[string]*mcpdir.LiveCheck{}}
	c := checker(true)
	c.Concurrency = 3
	var observed []string
	var mu sync.Mutex
	c.Observe = func(status string, _ time.Duration) { mu.Lock(); observed = append(observed, status); mu.Unlock() }
	var reported []string
	sum := c.Run(t.Context(), store, targets, slog.New(slog.DiscardHandler), func(tg livecheck.Target, r livecheck.Result) {
		reported = append(reported, tg.ID)
	})
	if sum[mcpdir.LiveUp] != 4 || sum[mcpdir.LiveAuthRequired] != 1 || sum[mcpdir.LiveDown] != 3 {
		t.Fatalf("summary %v", sum)
	}
	if len(reported) != 8 || len(observed) != 8 || len(store.checks) != 7 {
		t.Fatalf("reported %d, observed %d, recorded %d", len(reported), len(observed), len(store.checks))
	}
	if store.checks["2"].Status != mcpdir.LiveAuthRequired || store.checks["6"].Status != mcpdir.LiveUp || len(store.checks["0"].Tools) != 2 {
		t.Fatalf("recorded %+v", store.checks)
	}
}

// BenchmarkCheck measures one whole check of a real server on loopback
// (connection, initialize, tools/list, the end of the session), by
// transport: the cost of a check to the checker, network aside.
func BenchmarkCheck(b *testing.B) {
	s := mcpServer()
	for _, c := range []struct {
		transport string
		handler   http.Handler
	}{
		{mcpdir.TransportStreamableHTTP, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)},
		{mcpdir.TransportSSE, sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil)},
	} {
		b.Run(c.transport, func(b *testing.B) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			ch := checker(true)
			b.ReportAllocs()
			for b.Loop() {
				if res := ch.Check(b.Context(), mcpdir.Remote{URL: srv.URL, Transport: c.transport}); res.Status != mcpdir.LiveUp {
					b.Fatalf("%s: %s", res.Status, res.Reason)
				}
			}
		})
	}
}
