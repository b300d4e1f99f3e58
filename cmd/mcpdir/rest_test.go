package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// A new user's first searches find the right servers in the starter directory.
func TestStarterDirectoryAnswersFirstSearches(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	for q, want := range map[string]string{
		"postgres": "postgres",
		"github":   "github",
		"browser":  "playwright",
	} {
		res := s.search(t, key, q)
		if res.Count == 0 {
			t.Fatalf("%q: no results", q)
		}
		found := false
		for _, d := range res.Data[:min(5, len(res.Data))] {
			if strings.Contains(strings.ToLower(d.Name+" "+d.Brief), want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no %q server in the top 5: %+v", q, want, res.Data[:min(5, len(res.Data))])
		}
		// The registry namespace ("io.github.owner/…") names the publisher:
		// it must not make every entry match "github".
		if res.Total > 50 {
			t.Errorf("%q matches %d of the starter directory's entries", q, res.Total)
		}
	}
}

// Spec 4.1: 200 with data items carrying name, brief, website_url, and count.
func TestSearchResponseShape(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	resp := get(t, s.URL+"/api/open/v1/search?keywords=database", "Bearer "+key)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var raw map[string]any
	raw = decode[map[string]any](t, resp)
	data, ok := raw["data"].([]any)
	if !ok || len(data) == 0 {
		t.Fatalf("data: %v", raw)
	}
	if int(raw["count"].(float64)) != len(data) || int(raw["total"].(float64)) < len(data) {
		t.Fatalf("count %v total %v for %d items", raw["count"], raw["total"], len(data))
	}
	for _, d := range data {
		item := d.(map[string]any)
		for _, f := range []string{"id", "name", "brief", "website_url", "tags", "score"} {
			if _, ok := item[f]; !ok {
				t.Fatalf("item lacks %s: %v", f, item)
			}
		}
		if item["name"] == "" || !strings.HasPrefix(item["website_url"].(string), "http") {
			t.Fatalf("item: %v", item)
		}
	}
	// Spec 4.1 rule 2: no limit parameter; the server's own maximum applies.
	res := s.search(t, key, "mcp")
	withLimit := decode[searchBody](t, get(t, s.URL+"/api/open/v1/search?keywords=mcp&limit=1", "Bearer "+key))
	if withLimit.Count != res.Count || res.Count > 50 {
		t.Fatalf("limit parameter changed the result (%d vs %d) or more than 50 returned", withLimit.Count, res.Count)
	}
}

func TestMaxResultsSetting(t *testing.T) {
	s := startServer(t, "", "--max-results", "3")
	key := newKey(t, s.DataDir)
	if res := s.search(t, key, "server"); res.Count != 3 || res.Total <= 3 {
		t.Fatalf("count %d total %d, want 3 of more", res.Count, res.Total)
	}
}

// Spec 4.1 rule 1 and the input bounds: clear JSON errors with stable codes.
func TestBadInput(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	for _, tc := range []struct {
		name, query string
		status      int
		code        string
	}{
		{"missing keywords", "", 400, "missing_keywords"},
		{"other parameter only", "?q=postgres", 400, "missing_keywords"},
		{"blank keywords", "?keywords=%20%20", 400, "missing_keywords"},
		{"empty keywords", "?keywords=", 400, "missing_keywords"},
		{"keywords twice", "?keywords=a&keywords=b", 400, "invalid_keywords"},
		{"too long", "?keywords=" + strings.Repeat("a", mcpdir.MaxKeywordsBytes+1), 400, "invalid_keywords"},
		{"invalid utf-8", "?keywords=%FF%FE", 400, "invalid_keywords"},
		{"control character", "?keywords=post%00gres", 400, "invalid_keywords"},
		{"url too long", "?keywords=a&pad=" + strings.Repeat("x", mcpdir.MaxKeywordsBytes*3+1024), 414, "uri_too_long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(t, s.URL+"/api/open/v1/search"+tc.query, "Bearer "+key)
			body := decode[errorBody](t, resp)
			if resp.StatusCode != tc.status || body.Error.Code != tc.code || body.Error.Message == "" {
				t.Fatalf("got %d %+v, want %d %s", resp.StatusCode, body, tc.status, tc.code)
			}
		})
	}
	// 1024 bytes exactly is accepted.
	s.search(t, key, strings.Repeat("é", 512))

	t.Run("body too large", func(t *testing.T) {
		req, _ := http.NewRequest("POST", s.URL+"/api/open/v1/search?keywords=x", strings.NewReader(strings.Repeat("x", 2<<20)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := decode[errorBody](t, resp); resp.StatusCode != 413 || body.Error.Code != "request_too_large" {
			t.Fatalf("got %d %+v", resp.StatusCode, body)
		}
	})
	t.Run("wrong method", func(t *testing.T) {
		req, _ := http.NewRequest("DELETE", s.URL+"/api/open/v1/search?keywords=x", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := decode[errorBody](t, resp); resp.StatusCode != 405 || body.Error.Code != "method_not_allowed" || resp.Header.Get("Allow") != "GET" {
			t.Fatalf("got %d %+v", resp.StatusCode, body)
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		resp := get(t, s.URL+"/api/open/v2/search", "Bearer "+key)
		if body := decode[errorBody](t, resp); resp.StatusCode != 404 || body.Error.Code != "not_found" {
			t.Fatalf("got %d %+v", resp.StatusCode, body)
		}
	})
}

// Spec 5 and 7.1: every request needs a valid key; 401 otherwise.
func TestAuthentication(t *testing.T) {
	s := startServer(t, "")
	good := newKey(t, s.DataDir)
	expiring := newKey(t, s.DataDir, "--expires", "1s")
	revoked := newKey(t, s.DataDir)
	cli(t, s.DataDir, "keys", "revoke", revoked[:13])
	// A revocation by another process arrives through the change feed,
	// which may have brought the key before it.
	waitFor(t, 2*time.Second, "the revocation on the server", func() bool {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+revoked)
		resp.Body.Close()
		return resp.StatusCode == 401
	})
	forged := good[:len(good)-8] + "AAAAAAAA"

	for _, tc := range []struct {
		name, header string
		status       int
		code         string
	}{
		{"bearer", "Bearer " + good, 200, ""},
		{"bare key (spec 5.5)", good, 200, ""},
		{"lower-case scheme", "bearer " + good, 200, ""},
		{"missing", "", 401, "missing_key"},
		{"unknown", "Bearer mcpd_notakey", 401, "invalid_key"},
		{"forged", "Bearer " + forged, 401, "invalid_key"},
		{"basic scheme", "Basic " + good, 401, "invalid_key"},
		{"revoked", "Bearer " + revoked, 401, "revoked_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=git", tc.header)
			if resp.StatusCode != tc.status {
				body, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tc.status)
			}
			if tc.status == 200 {
				resp.Body.Close()
				return
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Fatalf("WWW-Authenticate %q", got)
			}
			if body := decode[errorBody](t, resp); body.Error.Code != tc.code || strings.Contains(body.Error.Message, "mcpd_") {
				t.Fatalf("body %+v, want code %s and no key echoed", body, tc.code)
			}
		})
	}
	// Authentication comes first: a request without a key learns nothing
	// about its parameters.
	if resp := get(t, s.URL+"/api/open/v1/search", ""); resp.StatusCode != 401 {
		t.Fatalf("missing key and keywords: %d, want 401", resp.StatusCode)
	}
	// Expiry takes effect on the next request after the deadline.
	time.Sleep(1100 * time.Millisecond)
	resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+expiring)
	if body := decode[errorBody](t, resp); resp.StatusCode != 401 || body.Error.Code != "expired_key" {
		t.Fatalf("expired key: %d %+v", resp.StatusCode, body)
	}
}

// A key revoked with the CLI while the server runs is refused within 2 s.
func TestRevocationReachesRunningServer(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	s.search(t, key, "git")
	cli(t, s.DataDir, "keys", "revoke", key[:13])
	start := time.Now()
	waitFor(t, 5*time.Second, "revocation seen by the server", func() bool {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
		resp.Body.Close()
		return resp.StatusCode == 401
	})
	t.Logf("revocation took effect after %v", time.Since(start).Round(time.Millisecond))
}

// Spec 8: 20 requests per rolling hour per key; the 21st is a 401 with
// code rate_limited, Retry-After and the RateLimit headers.
func TestRateLimitSequential(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	other := newKey(t, s.DataDir)
	for i := 1; i <= 20; i++ {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		if resp.Header.Get("RateLimit-Limit") != "20" || resp.Header.Get("RateLimit-Remaining") != fmt.Sprint(20-i) || resp.Header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d headers: %v", i, resp.Header)
		}
	}
	resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
	body := decode[errorBody](t, resp)
	if resp.StatusCode != 401 || body.Error.Code != "rate_limited" {
		t.Fatalf("21st request: %d %+v", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" || resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("21st request headers: %v", resp.Header)
	}
	// Other keys are unaffected.
	if resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+other); resp.StatusCode != 200 {
		t.Fatalf("other key limited: %d", resp.StatusCode)
	}
}

// Requests refused for their input, HEAD requests and MCP requests that
// call no tool spend nothing: after all of them the key still has its 20.
func TestOnlySearchesSpendTheBudget(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	do := func(method, path, body string) int {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"GET", "/api/open/v1/search", "", 400},
		{"GET", "/api/open/v1/search?keywords=", "", 400},
		{"GET", "/api/open/v1/search?keywords=%00", "", 400},
		{"GET", "/api/open/v1/search?keywords=a&keywords=b", "", 400},
		{"GET", "/api/open/v1/search?keywords=" + strings.Repeat("a", mcpdir.MaxKeywordsBytes+1), "", 400},
		{"HEAD", "/api/open/v1/search?keywords=git", "", 405},
		{"POST", "/api/open/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200},
		{"POST", "/api/open/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"a\u0000b"}}}`, 200},
		{"POST", "/api/open/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, 200},
	} {
		if got := do(c.method, c.path, c.body); got != c.status {
			t.Errorf("%s %s %s: %d, want %d", c.method, c.path, c.body, got, c.status)
		}
	}
	resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "19" {
		t.Errorf("first search after the refused requests: %d, remaining %q", resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
	}
}

func TestRateLimitConcurrentBurstExactly20(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	var ok, limited atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	for range 200 {
		wg.Go(func() {
			<-start
			req, _ := http.NewRequestWithContext(context.Background(), "GET", s.URL+"/api/open/v1/search?keywords=postgres", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			switch resp.StatusCode {
			case 200:
				ok.Add(1)
			case 401:
				limited.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if ok.Load() != 20 || limited.Load() != 180 {
		t.Fatalf("%d passed and %d limited of 200 concurrent requests; want exactly 20 and 180", ok.Load(), limited.Load())
	}
}

func TestRateLimitPerKeyOverride(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "3/h")
	free := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	codes := []int{}
	for range 4 {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if fmt.Sprint(codes) != "[200 200 200 401]" {
		t.Fatalf("codes %v", codes)
	}
	for range 30 {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+free)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("unlimited key: %d %v", resp.StatusCode, resp.Header)
		}
	}
}

func TestHealthAndReadiness(t *testing.T) {
	s := startServer(t, "")
	for _, p := range []string{"/healthz", "/readyz"} {
		resp := get(t, s.URL+p, "")
		if body := decode[map[string]any](t, resp); resp.StatusCode != 200 || body["status"] != map[string]string{"/healthz": "ok", "/readyz": "ready"}[p] {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, body)
		}
	}
}

// The rolling hour end to end, on a clock the test moves: 20 requests
// spread over 19 minutes, the 21st refused until the first leaves the
// window 60 minutes after it, then exactly one slot at a time.
func TestRateLimitRollingHourEndToEnd(t *testing.T) {
	var offset atomic.Int64 // nanoseconds added to the real time
	clock = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	t.Cleanup(func() { clock = time.Now })
	advance := func(d time.Duration) { offset.Add(int64(d)) }

	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	search := func() *http.Response {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+key)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for i := range 20 {
		if resp := search(); resp.StatusCode != 200 {
			t.Fatalf("request %d at minute %d: %d", i+1, i, resp.StatusCode)
		}
		if i < 19 {
			advance(time.Minute)
		}
	}
	resp := search() // minute 19
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != 401 || retry < 41*60-5 || retry > 41*60+1 {
		t.Fatalf("21st request: %d, Retry-After %d s (want about 41 min)", resp.StatusCode, retry)
	}
	advance(41*time.Minute - 2*time.Second) // 1 s before the first request leaves
	if resp := search(); resp.StatusCode != 401 {
		t.Fatalf("a request passed before the hour was over: %d", resp.StatusCode)
	}
	advance(3 * time.Second) // the first request has left the window
	if resp := search(); resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("after the first left the window: %d, remaining %q", resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
	}
	if resp := search(); resp.StatusCode != 401 {
		t.Fatalf("a second slot opened with the first: %d", resp.StatusCode)
	}
	advance(time.Minute) // the second request (minute 1) has left
	if resp := search(); resp.StatusCode != 200 {
		t.Fatalf("the second slot: %d", resp.StatusCode)
	}
}

// One JSON access line per request, with the route, status and key prefix
// (never the key or the query), and the request id answered in
// X-Request-Id; a well-formed id from the client is kept, another replaced.
func TestAccessLog(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	req, _ := http.NewRequest("GET", s.URL+"/api/open/v1/search?keywords=secretword", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("X-Request-Id", "trace-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") != "trace-123" {
		t.Errorf("X-Request-Id %q", resp.Header.Get("X-Request-Id"))
	}
	req.Header.Set("X-Request-Id", "bad id\" injected")
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	if id := resp.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
		t.Errorf("a malformed id was kept: %q", id)
	}
	// The log is written a moment after the request (buffered).
	waitFor(t, 5*time.Second, "the access line", func() bool { return strings.Contains(s.stderr.String(), `"id":"trace-123"`) })
	var line map[string]any
	for l := range strings.SplitSeq(s.stderr.String(), "\n") {
		if strings.Contains(l, `"id":"trace-123"`) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("not JSON: %s", l)
			}
		}
	}
	if line == nil || line["msg"] != "request" || line["route"] != "GET /api/open/v1/search" || line["status"] != 200.0 ||
		line["key"] != key[:13] || line["method"] != "GET" {
		t.Fatalf("access line %v", line)
	}
	if logs := s.stderr.String(); strings.Contains(logs, key) || strings.Contains(logs, "secretword") {
		t.Error("the log holds the key or the query")
	}
}

// Filters and facets on REST search: every item satisfies the filters,
// the total counts filtered matches, facets count them, bad filters are a
// 400 that spends nothing.
func TestSearchFiltersAndFacets(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	var records []string
	for i := range 30 {
		transport, registry, official := "stdio", "npm", "false"
		if i%3 == 1 {
			transport, registry = "streamable-http", "pypi"
		}
		if i%5 == 0 {
			official = "true"
		}
		records = append(records, fmt.Sprintf(`{"name": "kestrel-%d", "brief": "Kestrel falcon tracking", "website_url": "https://example.com/k%d", "is_official": %s, "tags": ["birds", "tag%d"], "packages": [{"registry_type": %q, "identifier": "k%d", "transport": %q}]}`,
			i, i, official, i%2, registry, i, transport))
	}
	cli(t, s.DataDir, "import", writeLines(t, records...))
	type body struct {
		Data []struct {
			Name       string   `json:"name"`
			Transports []string `json:"transports"`
			IsOfficial bool     `json:"is_official"`
			Tags       []string `json:"tags"`
		} `json:"data"`
		Count, Total int
		Facets       struct {
			Transports map[string]int `json:"transports"`
			Registries map[string]int `json:"registries"`
			Tags       []struct {
				Tag   string `json:"tag"`
				Count int    `json:"count"`
			} `json:"tags"`
		} `json:"facets"`
	}
	find := func(query string) body {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=kestrel"+query, "Bearer "+key)
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s: %d %s", query, resp.StatusCode, b)
		}
		return decode[body](t, resp)
	}
	waitFor(t, 5*time.Second, "the import searchable", func() bool { return find("").Total == 30 })
	all := find("")
	if all.Total != 30 || all.Facets.Transports["stdio"] != 20 || all.Facets.Registries["pypi"] != 10 || len(all.Facets.Tags) == 0 || all.Facets.Tags[0].Tag != "birds" || all.Facets.Tags[0].Count != 30 {
		t.Fatalf("unfiltered: total %d, facets %+v", all.Total, all.Facets)
	}
	b := find("&transport=streamable-http&tag=tag1&tag=birds")
	if b.Total != 5 || b.Count != 5 || b.Facets.Transports["streamable-http"] != 5 || b.Facets.Transports["stdio"] != 0 {
		t.Fatalf("filtered: %+v", b)
	}
	for _, it := range b.Data {
		if it.Transports[0] != "streamable-http" || !slices.Contains(it.Tags, "tag1") {
			t.Errorf("%s does not satisfy the filter", it.Name)
		}
	}
	if b := find("&official=true&registry=npm"); b.Total != 4 {
		t.Errorf("official npm: %d", b.Total)
	}
	// Facets are cached per query, and counted afresh after any change.
	cli(t, s.DataDir, "import", writeLines(t, `{"name": "kestrel-oci", "brief": "Kestrel falcon tracking", "website_url": "https://example.com/koci", "packages": [{"registry_type": "oci", "identifier": "koci", "transport": "sse"}]}`))
	waitFor(t, 5*time.Second, "the second import searchable", func() bool { return find("").Total == 31 })
	if f := find("").Facets; f.Registries["oci"] != 1 || f.Transports["sse"] != 1 || f.Transports["stdio"] != 20 || f.Tags[0].Count != 30 {
		t.Errorf("facets after an import: %+v", f)
	}
	for _, bad := range []string{"&transport=pigeon", "&official=maybe", "&registry=npm&registry=pypi"} {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=kestrel"+bad, "Bearer "+key)
		if e := decode[errorBody](t, resp); resp.StatusCode != 400 || e.Error.Code != "invalid_request" {
			t.Errorf("%s: %d %+v", bad, resp.StatusCode, e)
		}
	}
}
