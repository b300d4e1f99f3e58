package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// /metrics on the real server: the families an operator needs, with the
// traffic the test made counted; served to this machine, to admin keys
// behind a proxy, and to no one else; clean by promtool's checks.
func TestMetrics(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "1")
	admin := newKey(t, s.DataDir, "--scope", "admin")
	for range 2 { // the second is rate limited
		resp := get(t, s.URL+"/api/open/v1/search?keywords=github", "Bearer "+key)
		resp.Body.Close()
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/open/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The search twice through MCP: its results are kept from REST's, and
	// the second call's answer from the first's.
	unlimited := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/open/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"github"}}}`))
		req.Header.Set("Authorization", "Bearer "+unlimited)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("search_mcp: %v %v", resp, err)
		}
		resp.Body.Close()
	}

	scrape := func(headers ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/metrics", nil)
		for i := 0; i < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	// A request is counted when its handler returns, which can be just
	// after its client has read the whole answer (and sent the next).
	status, body := scrape()
	for deadline := time.Now().Add(2 * time.Second); status == 200 && time.Now().Before(deadline) &&
		!strings.Contains(body, `mcpdir_http_requests_total{method="GET",route="GET /api/open/v1/search",status="200"} 1`); {
		time.Sleep(10 * time.Millisecond)
		status, body = scrape()
	}
	if status != 200 {
		t.Fatalf("from this machine: %d %s", status, body)
	}
	for _, want := range []string{
		`mcpdir_http_requests_total{method="GET",route="GET /api/open/v1/search",status="200"} 1`,
		`mcpdir_http_requests_total{method="GET",route="GET /api/open/v1/search",status="401"} 1`,
		`mcpdir_rate_limited_total 1`,
		`mcpdir_mcp_messages_total{method="tools/list",tool=""} 1`,
		`mcpdir_http_request_duration_seconds_bucket{route="GET /api/open/v1/search",le=`,
		`mcpdir_search_duration_seconds_count 2`, // REST's, then search_mcp's first (from the results kept)
		`mcpdir_cache_lookups_total{cache="results",result="hit"} 1`,
		`mcpdir_cache_lookups_total{cache="results",result="miss"} 1`,
		`mcpdir_cache_lookups_total{cache="mcp_answers",result="hit"} 1`,
		`mcpdir_cache_lookups_total{cache="mcp_answers",result="miss"} 1`,
		`mcpdir_index_entries 2`, // the starter directory: 2xx entries
		`mcpdir_mcp_open_streams 0`,
		`mcpdir_changefeed_caught_up_timestamp_seconds `,
		`go_goroutines `, `process_resident_memory_bytes `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %q in the metrics", want)
		}
	}
	// Relayed by a proxy: not this machine.
	if status, _ := scrape("X-Forwarded-For", "203.0.113.9"); status != 401 {
		t.Errorf("through a proxy without a key: %d", status)
	}
	if status, _ := scrape("X-Forwarded-For", "203.0.113.9", "Authorization", "Bearer "+key); status != 403 {
		t.Errorf("through a proxy with a search key: %d", status)
	}
	if status, _ := scrape("X-Forwarded-For", "203.0.113.9", "Authorization", "Bearer "+admin); status != 200 {
		t.Errorf("through a proxy with an admin key: %d", status)
	}

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is missing in CI: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool not found (Debian package prometheus): the metrics were not linted")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}

// With --metrics-addr the metrics have a listener of their own, and the
// main one does not serve them.
func TestMetricsAddr(t *testing.T) {
	addr := freeAddr(t)
	s := startServer(t, "", "--metrics-addr", addr)
	resp := get(t, s.URL+"/metrics", "")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("/metrics on the main listener: %d", resp.StatusCode)
	}
	resp = get(t, "http://"+addr+"/metrics", "")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "mcpdir_index_entries") {
		t.Errorf("the metrics listener: %d %.200s", resp.StatusCode, body)
	}
}
