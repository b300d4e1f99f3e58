package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir/storetest"
)

// remoteServers starts the hosted servers the directory's entries point
// to: two real MCP servers (Streamable HTTP and the 2024-11-05 SSE
// transport), one that needs sign-in and one that is down. It returns
// their entries as NDJSON lines.
func remoteServers(t *testing.T) []string {
	s := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1"}, nil)
	type in struct {
		City string `json:"city"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "forecast", Description: "Forecast <b>for</b> a city"}, func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	start := func(h http.Handler) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	streamable := start(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	sse := start(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil))
	auth := start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }))
	down := start(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	line := func(name, url, transport string) string {
		return fmt.Sprintf(`{"name": %q, "brief": "Hosted weather forecasts", "website_url": "https://example.com/%s", "remotes": [{"url": %q, "type": %q}]}`,
			name, name, url, transport)
	}
	return []string{
		line("weather-streamable", streamable, "streamable-http"),
		line("weather-sse", sse, "sse"),
		line("weather-signin", auth, "streamable-http"),
		line("weather-down", down, "streamable-http"),
		`{"name": "weather-local", "brief": "Weather forecasts on your machine", "website_url": "https://example.com/local", "packages": [{"registry_type": "npm", "identifier": "weather-local"}]}`,
	}
}

type liveItem struct {
	Name string `json:"name"`
	Live *struct {
		Status     string `json:"status"`
		CheckedAt  string `json:"checked_at"`
		LatencyMS  *int64 `json:"latency_ms"`
		ToolsCount int    `json:"tools_count"`
	} `json:"live"`
}

func liveSearch(t *testing.T, s *testServer, key, query string) map[string]liveItem {
	t.Helper()
	resp := get(t, s.URL+"/api/open/v1/search?keywords=weather"+query, "Bearer "+key)
	body := decode[struct {
		Data []liveItem `json:"data"`
	}](t, resp)
	out := map[string]liveItem{}
	for _, it := range body.Data {
		out[it.Name] = it
	}
	return out
}

// mcpdir check on a running server's data directory: a line per entry and
// a summary; the server shows the results within 5 s in REST, MCP and its
// pages, and live=up finds the servers that are up.
func TestCheckCommand(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	cli(t, s.DataDir, "import", writeLines(t, remoteServers(t)...))
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	waitFor(t, 5*time.Second, "the import on the running server", func() bool { return len(liveSearch(t, s, key, "")) == 5 })
	if before := liveSearch(t, s, key, ""); before["weather-streamable"].Live != nil {
		t.Fatalf("before any check: %+v", before)
	}

	out := cli(t, s.DataDir, "check", "--allow-private", "--timeout", "3", "--concurrency", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !regexp.MustCompile(`^checked 4 servers in \S+: 2 up, 1 auth_required, 1 down$`).MatchString(lines[4]) {
		t.Fatalf("output:\n%s", out)
	}
	for _, want := range []string{`^up +\d+ms  weather-streamable  http://127\.0\.0\.1:\d+  1 tool, protocol 20`, `^up .*weather-sse`,
		`^auth_required .*weather-signin .*HTTP 401`, `^down .*weather-down .*HTTP 503`} {
		if !regexp.MustCompile(`(?m)` + want).MatchString(out) {
			t.Errorf("no line matches %s in\n%s", want, out)
		}
	}

	recorded := time.Now()
	waitFor(t, 5*time.Second, "the results on the running server", func() bool {
		got := liveSearch(t, s, key, "")
		for _, name := range []string{"weather-streamable", "weather-sse", "weather-signin", "weather-down"} {
			if got[name].Live == nil {
				return false // results arrive through the change feed, not all at once
			}
		}
		return true
	})
	t.Logf("results on the running server %v after the command ended", time.Since(recorded).Round(time.Millisecond))
	got := liveSearch(t, s, key, "")
	for name, want := range map[string]string{"weather-streamable": "up", "weather-sse": "up", "weather-signin": "auth_required", "weather-down": "down"} {
		l := got[name].Live
		if l == nil || l.Status != want || l.LatencyMS == nil {
			t.Fatalf("%s: %+v, want %s", name, l, want)
		}
		if at, err := time.Parse(time.RFC3339, l.CheckedAt); err != nil || time.Since(at) > time.Minute {
			t.Errorf("%s: checked_at %q", name, l.CheckedAt)
		}
		if (want == "up") != (l.ToolsCount == 1) {
			t.Errorf("%s: %d tools", name, l.ToolsCount)
		}
	}
	if got["weather-local"].Live != nil {
		t.Errorf("an entry without a remote has a live check: %+v", got["weather-local"].Live)
	}
	up := liveSearch(t, s, key, "&live=up")
	if len(up) != 2 || up["weather-streamable"].Live == nil || up["weather-sse"].Live == nil {
		t.Fatalf("live=up: %+v", up)
	}
	// Down ranks below its equals; nothing is hidden for being down.
	resp := get(t, s.URL+"/api/open/v1/search?keywords=hosted+weather+forecasts", "Bearer "+key)
	ranked := decode[struct{ Data []liveItem }](t, resp).Data
	if len(ranked) != 5 || ranked[3].Name != "weather-down" {
		t.Errorf("ranking: %+v", ranked)
	}
	resp = get(t, s.URL+"/api/open/v1/search?keywords=weather&live=down", "Bearer "+key)
	if e := decode[errorBody](t, resp); resp.StatusCode != 400 || e.Error.Code != "invalid_request" {
		t.Errorf("live=down: %d %+v", resp.StatusCode, e)
	}

	// get_mcp_detail carries the tools the server listed.
	cs := connectMCP(t, s, "Bearer "+key)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_mcp_detail", Arguments: map[string]any{"mcp_id": mcpdirEntryID("https://example.com/weather-sse")}})
	if err != nil || res.IsError {
		t.Fatalf("get_mcp_detail: %v %+v", err, res)
	}
	var detail struct {
		Data struct {
			Live struct {
				Status   string `json:"status"`
				Protocol string `json:"protocol_version"`
				Tools    []struct{ Name, Description string }
			} `json:"live"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &detail); err != nil {
		t.Fatal(err)
	}
	if l := detail.Data.Live; l.Status != "up" || l.Protocol == "" || len(l.Tools) != 1 || l.Tools[0].Name != "forecast" || l.Tools[0].Description != "Forecast <b>for</b> a city" {
		t.Fatalf("detail live: %+v", l)
	}
	res, err = cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "weather", "live": "up"}})
	if err != nil || res.IsError {
		t.Fatalf("search_mcp live=up: %v %+v", err, res)
	}
	var found struct{ Total int }
	if json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &found); found.Total != 2 {
		t.Fatalf("search_mcp live=up: %d found", found.Total)
	}

	// The server's page says it in words, with a <time> and the tools,
	// the server's text escaped.
	for id, want := range map[string][]string{
		"weather-sse":    {`>Up</span> checked <time datetime="20`, "<code>forecast</code>", "Forecast &lt;b&gt;for&lt;/b&gt; a city"},
		"weather-signin": {`>Needs sign-in</span> checked <time datetime=`},
		"weather-down":   {`>Down</span> checked <time datetime=`},
	} {
		resp := get(t, s.URL+"/servers/"+mcpdirEntryID("https://example.com/"+id), "")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, w := range want {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("%s page lacks %q", id, w)
			}
		}
	}
}

// By default, a check reaches no private address: every loopback server is
// down, none marked up or auth_required.
func TestCheckRefusesPrivateAddresses(t *testing.T) {
	dir := t.TempDir()
	cli(t, dir, "import", writeLines(t, remoteServers(t)...))
	out := cli(t, dir, "check", "--timeout", "2s")
	if !strings.Contains(out, "checked 4 servers") || !strings.HasSuffix(strings.TrimSpace(out), "0 up, 0 auth_required, 4 down") ||
		strings.Count(out, "refused: the address is not public") != 4 {
		t.Fatalf("output:\n%s", out)
	}
	// Entries named by id: only those.
	out = cli(t, dir, "check", "--allow-private", mcpdirEntryID("https://example.com/weather-sse"), strings.ToUpper(mcpdirEntryID("https://example.com/weather-signin")))
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.HasSuffix(lines[2], "1 up, 1 auth_required, 0 down") {
		t.Fatalf("two entries by id:\n%s", out)
	}
}

func TestCheckFlags(t *testing.T) {
	for _, args := range [][]string{{"--timeout", "soon"}, {"--timeout", "0"}, {"--concurrency", "0"}, {"extra"}, {mcpdirEntryID("https://example.com/none")}} {
		var stderr bytes.Buffer
		err := run(t.Context(), append([]string{"mcpdir", "check", "--data-dir", t.TempDir()}, args...), noEnv, nil, io.Discard, &stderr)
		if exitCode(err) != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	for _, v := range []string{"30", "1.5", "90s", "1h"} {
		if _, err := parseSeconds(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	var stderr bytes.Buffer
	for _, v := range []string{"500ms", "0.5", "-1", "often"} {
		err := run(t.Context(), []string{"mcpdir", "serve", "--check-every", v, "--data-dir", t.TempDir()}, noEnv, nil, io.Discard, &stderr)
		if exitCode(err) != 2 {
			t.Errorf("serve --check-every %s: %v, want a usage error", v, err)
		}
	}
}

// serve --check-every on PostgreSQL: two replicas check, yet every server
// is checked once (the lock, then nothing is due); the results reach a
// third replica within 5 s; the checks are counted in the metrics and
// summed up in the log.
func TestServeChecksInTheBackground(t *testing.T) {
	db := storetest.PostgresURL(t)
	cli(t, t.TempDir(), "import", "--database-url", db, writeLines(t, remoteServers(t)...))
	other := startServer(t, "", "--database-url", db, "--no-starter")
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	var checkers []*testServer
	for range 2 {
		checkers = append(checkers, startServer(t, "", "--database-url", db, "--no-starter", "--check-every", "1h", "--check-allow-private"))
	}
	waitFor(t, 15*time.Second, "background checks seen by the other replica", func() bool {
		got := liveSearch(t, other, key, "&live=up")
		return len(got) == 2
	})
	waitFor(t, 5*time.Second, "every result on the other replica", func() bool {
		got := liveSearch(t, other, key, "")
		return got["weather-signin"].Live != nil && got["weather-down"].Live != nil
	})
	// The round's summary is logged once its checks are recorded, and the
	// log is written a moment after it is logged.
	summary := `"msg":"live checks","checked":4,"up":2,"auth_required":1,"down":1`
	waitFor(t, 5*time.Second, "the round's summary in a checker's log", func() bool {
		return strings.Contains(checkers[0].stderr.String()+checkers[1].stderr.String(), summary)
	})
	counted := map[string]int{}
	count := regexp.MustCompile(`(?m)^mcpdir_live_checks_total\{status="(\w+)"\} (\d+)$|^mcpdir_live_check_duration_seconds_(count) (\d+)$`)
	logs := ""
	for _, c := range checkers {
		resp := get(t, c.URL+"/metrics", "")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, m := range count.FindAllStringSubmatch(string(body), -1) {
			n, _ := strconv.Atoi(m[2] + m[4])
			counted[m[1]+m[3]] += n
		}
		logs += c.stderr.String()
	}
	if want := map[string]int{"up": 2, "auth_required": 1, "down": 1, "count": 4}; !maps.Equal(counted, want) {
		t.Errorf("checks counted by the two replicas: %v, want %v", counted, want)
	}
	if strings.Count(logs, `"msg":"live checks"`) != 1 || !strings.Contains(logs, summary) {
		t.Errorf("not one summary of 4 checks in the logs:\n%s", logs)
	}
}

// serve --check-every checks again: a server that goes from needing sign-in
// to failing is seen down at a later round, and back up at another.
func TestServeChecksAgain(t *testing.T) {
	var state atomic.Int32 // 0: 401, 1: 503, 2: a real MCP server
	mcpServer := sdk.NewServer(&sdk.Implementation{Name: "tides", Version: "1"}, nil)
	real := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpServer }, nil)
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch state.Load() {
		case 0:
			w.WriteHeader(http.StatusUnauthorized)
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			real.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(remote.Close)
	dir := t.TempDir()
	cli(t, dir, "import", writeLines(t, `{"name": "tides", "brief": "Tide tables and marine weather", "website_url": "https://example.com/tides", "remotes": [{"url": "`+remote.URL+`", "type": "streamable-http"}]}`))
	key := newKey(t, dir, "--rate-limit", "unlimited")
	s := startServer(t, dir, "--no-starter", "--check-every", "1", "--check-allow-private")
	status := func() string {
		if l := liveSearch(t, s, key, "")["tides"].Live; l != nil {
			return l.Status
		}
		return ""
	}
	for i, want := range []string{"auth_required", "down", "up"} {
		state.Store(int32(i))
		waitFor(t, 10*time.Second, "status "+want, func() bool { return status() == want })
	}
}

// Two servers a check speaks to in ways older ones did not: one that speaks
// only the stateless 2026-07-28 revision (the SDK's stateless handler),
// and the directory's own MCP endpoint, which wants sign-in and says how
// in its OAuth metadata. The command, get_mcp_detail and the pages show
// what the check found.
func TestCheckRevisionsAndSignIn(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	mcpServer := sdk.NewServer(&sdk.Implementation{Name: "weather", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2026-07-28"}})
	type in struct {
		City string `json:"city"`
	}
	sdk.AddTool(mcpServer, &sdk.Tool{Name: "forecast", Description: "Forecast for a city"}, func(context.Context, *sdk.CallToolRequest, in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	stateless := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpServer }, &sdk.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(stateless.Close)
	line := func(name, url string) string {
		return fmt.Sprintf(`{"name": %q, "brief": "Hosted", "website_url": "https://example.com/%s", "remotes": [{"url": %q, "type": "streamable-http"}]}`, name, name, url)
	}
	cli(t, s.DataDir, "import", writeLines(t, line("weather-2026", stateless.URL), line("directory-itself", s.URL+"/api/open/mcp")))

	out := cli(t, s.DataDir, "check", "--allow-private", "--timeout", "5")
	for _, want := range []string{`(?m)^up .*weather-2026 .*  1 tool, protocol 2026-07-28$`,
		`(?m)^auth_required .*directory-itself .*HTTP 401: the server needs sign-in; authorization server ` + regexp.QuoteMeta(s.URL) +
			` \(client ID metadata documents, dynamic registration\)$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no line matches %s in\n%s", want, out)
		}
	}

	page := func(name string) string {
		resp := get(t, s.URL+"/servers/"+mcpdirEntryID("https://example.com/"+name), "")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(body)
	}
	waitFor(t, 5*time.Second, "the results on the running server", func() bool {
		return strings.Contains(page("weather-2026"), "Live check") && strings.Contains(page("directory-itself"), "Live check")
	})
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	cs := connectMCP(t, s, "Bearer "+key)
	type live struct {
		Status           string   `json:"status"`
		ProtocolVersion  string   `json:"protocol_version"`
		ProtocolVersions []string `json:"protocol_versions"`
		Auth             *struct {
			ResourceMetadata          string   `json:"resource_metadata"`
			AuthorizationServers      []string `json:"authorization_servers"`
			ClientIDMetadataDocuments bool     `json:"client_id_metadata_documents"`
			DynamicRegistration       bool     `json:"dynamic_registration"`
		} `json:"auth"`
	}
	detail := func(name string) live {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_mcp_detail", Arguments: map[string]any{"mcp_id": mcpdirEntryID("https://example.com/" + name)}})
		if err != nil || res.IsError {
			t.Fatalf("get_mcp_detail: %v %+v", err, res)
		}
		var d struct{ Data struct{ Live live } }
		if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &d); err != nil {
			t.Fatal(err)
		}
		return d.Data.Live
	}
	if l := detail("weather-2026"); l.Status != "up" || l.ProtocolVersion != "2026-07-28" || !reflect.DeepEqual(l.ProtocolVersions, []string{"2026-07-28"}) || l.Auth != nil {
		t.Errorf("weather-2026: %+v", l)
	}
	l := detail("directory-itself")
	if l.Status != "auth_required" || l.Auth == nil || l.Auth.ResourceMetadata != s.URL+"/.well-known/oauth-protected-resource/api/open/mcp" ||
		!reflect.DeepEqual(l.Auth.AuthorizationServers, []string{s.URL}) || !l.Auth.ClientIDMetadataDocuments || !l.Auth.DynamicRegistration || l.ProtocolVersions != nil {
		t.Errorf("directory-itself: %+v %+v", l, l.Auth)
	}

	for name, want := range map[string][]string{
		"weather-2026":     {"(MCP 2026-07-28)", "<dt>Protocol versions</dt><dd>2026-07-28</dd>"},
		"directory-itself": {"<dt>Authorization server</dt><dd><code>" + s.URL + "</code></dd>", "<dd>Client ID Metadata Documents, dynamic registration</dd>"},
	} {
		body := page(name)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s page lacks %q", name, w)
			}
		}
	}
}
