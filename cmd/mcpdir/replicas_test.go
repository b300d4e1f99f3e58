package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpdir/mcpdir/storetest"
)

// Replicas on one PostgreSQL database: what the CLI writes with
// --database-url (an import, a key, a revocation) reaches every replica.
func TestReplicasShareThePostgresStore(t *testing.T) {
	db := storetest.PostgresURL(t)
	a := startServer(t, "", "--database-url", db, "--no-starter")
	b := startServer(t, "", "--database-url", db, "--no-starter")
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	cli(t, t.TempDir(), "import", "--database-url", db, writeLines(t, `{"name": "zebrafish-mcp", "brief": "Zebrafish genome lookups", "website_url": "https://example.com/zebrafish"}`))
	start := time.Now()
	for _, s := range []*testServer{a, b} {
		waitFor(t, 5*time.Second, "the import on every replica", func() bool {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+key)
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				io.Copy(io.Discard, resp.Body)
				return false
			}
			return decode[searchBody](t, resp).Total == 1
		})
	}
	t.Logf("import and key on both replicas after %v", time.Since(start).Round(time.Millisecond))
	cli(t, t.TempDir(), "keys", "revoke", "--database-url", db, key[:13])
	start = time.Now()
	for _, s := range []*testServer{a, b} {
		waitFor(t, 5*time.Second, "the revocation on every replica", func() bool {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=zebrafish", "Bearer "+key)
			resp.Body.Close()
			return resp.StatusCode == 401
		})
	}
	t.Logf("revocation on both replicas after %v", time.Since(start).Round(time.Millisecond))
}

// viaProxy returns rawURL with its host replaced by the proxy's address.
func viaProxy(t *testing.T, rawURL string, p *storetest.Proxy) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.Addr
	return u.String()
}

func hostOf(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// One budget across replicas and interfaces, in Redis: 200 requests at
// once spread over 3 replicas, exactly 20 pass; a replica killed and
// started again keeps the key spent.
func TestBudgetAcrossReplicas(t *testing.T) {
	db, rdb := storetest.PostgresURL(t), ownRedisDB(t)
	var replicas []*testServer
	for range 3 {
		replicas = append(replicas, startServer(t, "", "--database-url", db, "--redis-url", rdb, "--no-starter"))
	}
	key := newKey(t, t.TempDir(), "--database-url", db)
	var ok, limited atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	for i := range 200 {
		wg.Go(func() {
			<-start
			req, _ := http.NewRequest("GET", replicas[i%3].URL+"/api/open/v1/search?keywords=postgres", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case 200:
				ok.Add(1)
			case 401:
				limited.Add(1)
			default:
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	close(start)
	wg.Wait()
	if ok.Load() != 20 || limited.Load() != 180 {
		t.Fatalf("%d passed and %d were limited, want 20 and 180", ok.Load(), limited.Load())
	}
	for _, r := range replicas {
		if strings.Contains(r.stderr.String(), "redis unreachable") {
			t.Fatalf("a burst was taken for a Redis outage:\n%s", r.stderr)
		}
	}
	// A new replica (as after a restart) finds the key spent.
	fresh := startServer(t, "", "--database-url", db, "--redis-url", rdb, "--no-starter")
	resp := get(t, fresh.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("after a restart: %d %v", resp.StatusCode, resp.Header)
	}
}

// ownRedisDB is the URL of an emptied Redis database (3 to 14) for a test
// that must start from nothing: database 0 is shared with other packages'
// tests, which run at the same time.
func ownRedisDB(t *testing.T) string {
	t.Helper()
	rdb := strings.TrimSuffix(storetest.RedisURL(t), "/0") + "/" + strconv.Itoa(3+rand.IntN(12))
	flushRedis(t, rdb)
	return rdb
}

func flushRedis(t *testing.T, rawURL string) {
	t.Helper()
	o, err := goredis.ParseURL(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(o)
	defer c.Close()
	if err := c.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
}

// PostgreSQL and Redis cut off and restored under a running replica:
// searches are answered throughout, /readyz names what is down, a key the
// replica has not seen cannot be checked (503, not 500), and everything
// heals when the dependencies return.
func TestOutagesOfPostgresAndRedis(t *testing.T) {
	db, rdb := storetest.PostgresURL(t), storetest.RedisURL(t)
	pgProxy, redisProxy := storetest.NewProxy(t, hostOf(t, db)), storetest.NewProxy(t, hostOf(t, rdb))
	s := startServer(t, "", "--database-url", viaProxy(t, db, pgProxy), "--redis-url", viaProxy(t, rdb, redisProxy))
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	s.search(t, key, "postgres") // the replica now knows the key
	readyz := func() (int, map[string]any) {
		resp := get(t, s.URL+"/readyz", "")
		return resp.StatusCode, decode[map[string]any](t, resp)
	}
	checks := func(body map[string]any) map[string]any { c, _ := body["checks"].(map[string]any); return c }

	// Searches throughout: every one answered, before, during and after.
	stop := make(chan struct{})
	var searched, failed atomic.Int32
	var searching sync.WaitGroup
	searching.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			searched.Add(1)
			if resp.StatusCode != 200 {
				failed.Add(1)
			}
		}
	})
	defer func() {
		close(stop)
		searching.Wait()
		if failed.Load() > 0 || searched.Load() < 20 {
			t.Errorf("%d of %d searches failed across the outages", failed.Load(), searched.Load())
		}
		t.Logf("%d searches across the outages, all answered", searched.Load())
	}()

	pgProxy.Cut()
	redisProxy.Cut()
	waitFor(t, 10*time.Second, "/readyz names the database and Redis as down", func() bool {
		status, body := readyz()
		c := checks(body)
		return status == 200 && body["status"] == "degraded" &&
			strings.HasPrefix(fmt.Sprint(c["database"]), "down") && strings.HasPrefix(fmt.Sprint(c["redis"]), "down")
	})
	if res := s.search(t, key, "postgres"); res.Count == 0 {
		t.Fatal("no search results during the outage")
	}
	unknown := newKey(t, t.TempDir(), "--database-url", db) // made on the database directly, unseen by the replica
	resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+unknown)
	if body := decode[errorBody](t, resp); resp.StatusCode != 503 || body.Error.Code != "unavailable" {
		t.Fatalf("an unseen key during the outage: %d %+v", resp.StatusCode, body)
	}

	// Written while the replica cannot reach the database: the change feed
	// picks it up where it stopped once the database is back.
	cli(t, t.TempDir(), "import", "--database-url", db, writeLines(t, `{"name": "narwhal-mcp", "brief": "Narwhal tusk measurements", "website_url": "https://example.com/narwhal"}`))

	pgProxy.Restore()
	redisProxy.Restore()
	waitFor(t, 15*time.Second, "/readyz back to ready", func() bool {
		status, body := readyz()
		return status == 200 && body["status"] == "ready"
	})
	waitFor(t, 10*time.Second, "the key made during the outage works", func() bool {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=git", "Bearer "+unknown)
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	waitFor(t, 10*time.Second, "the entry imported during the outage is found", func() bool {
		return s.search(t, key, "narwhal").Total == 1
	})
	waitFor(t, 5*time.Second, "the ends of the outages logged", func() bool {
		logs := s.stderr.String()
		return strings.Contains(logs, "redis is back") && strings.Contains(logs, "database is back")
	})
	logs := s.stderr.String()
	for _, line := range []string{"database unreachable", "database is back", "redis unreachable", "redis is back"} {
		if n := strings.Count(logs, line); n != 1 {
			t.Errorf("%q logged %d times", line, n)
		}
	}
}

// rotating sends each request to the next replica in turn, as a
// round-robin balancer without stickiness does.
type rotating struct {
	authorization string
	replicas      []string // host:port
	next          atomic.Int32
	mu            sync.Mutex
	seen          map[string]int // requests per replica
}

func (r *rotating) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	host := r.replicas[int(r.next.Add(1))%len(r.replicas)]
	req.URL.Host, req.Host = host, host
	req.Header.Set("Authorization", r.authorization)
	r.mu.Lock()
	r.seen[host]++
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// MCP sessions across replicas behind a balancer without stickiness: a
// Streamable HTTP session whose requests land on every replica in turn,
// and a legacy HTTP+SSE session whose stream one replica holds while its
// POSTs land on the others.
func TestMCPSessionsAcrossReplicas(t *testing.T) {
	db, rdb := storetest.PostgresURL(t), storetest.RedisURL(t)
	var hosts []string
	for range 3 {
		s := startServer(t, "", "--database-url", db, "--redis-url", rdb)
		hosts = append(hosts, strings.TrimPrefix(s.URL, "http://"))
	}
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	streamable := func(c *http.Client) sdk.Transport {
		return &sdk.StreamableClientTransport{Endpoint: "http://" + hosts[0] + "/api/open/mcp", HTTPClient: c, MaxRetries: -1}
	}
	for _, tc := range []struct {
		version   string
		transport func(*http.Client) sdk.Transport
	}{
		{"2025-11-25", streamable},
		{"2025-06-18", streamable},
		{"2025-03-26", streamable},
		{"2024-11-05", func(c *http.Client) sdk.Transport {
			return &sdk.SSEClientTransport{Endpoint: "http://" + hosts[0] + "/api/open/mcp", HTTPClient: c}
		}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			rt := &rotating{authorization: "Bearer " + key, replicas: hosts, seen: map[string]int{}}
			client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
			cs, err := client.Connect(ctx, tc.transport(&http.Client{Transport: rt}), &sdk.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			if v := cs.InitializeResult().ProtocolVersion; v != tc.version {
				t.Fatalf("negotiated %s", v)
			}
			if tc.version != "2024-11-05" && cs.ID() == "" {
				t.Fatal("no session: the test would prove nothing")
			}
			for i := range 6 {
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatalf("tools/list %d: %v", i, err)
				}
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_mcp", Arguments: map[string]any{"keywords": "github"}})
				if err != nil || res.IsError {
					t.Fatalf("search %d: %v %+v", i, err, res)
				}
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			rt.mu.Lock()
			defer rt.mu.Unlock()
			if len(rt.seen) != 3 {
				t.Errorf("the requests reached %d replicas: %v", len(rt.seen), rt.seen)
			}
			t.Logf("requests per replica: %v", rt.seen)
		})
	}
}

// A revocation ends the key's open streams on every replica, the streams
// of sessions other replicas opened included; and a DELETE on one replica
// ends the session on all.
func TestRevocationAndDeleteAcrossReplicas(t *testing.T) {
	db, rdb := storetest.PostgresURL(t), storetest.RedisURL(t)
	a := startServer(t, "", "--database-url", db, "--redis-url", rdb)
	b := startServer(t, "", "--database-url", db, "--redis-url", rdb)
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	do := func(s *testServer, method, body string, headers ...string) *http.Response {
		req, _ := http.NewRequest(method, s.URL+"/api/open/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	initialize := func() string {
		resp := do(a, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Header.Get("Mcp-Session-Id")
	}
	// DELETE on b of a session a holds: gone on a too.
	sid := initialize()
	if resp := do(b, http.MethodDelete, "", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on the other replica: %d", resp.StatusCode)
	}
	resp := do(a, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the deleted session still answers on the replica that opened it: %d", resp.StatusCode)
	}

	// Streams on b: one of a's session, one legacy; then the key is revoked.
	sid = initialize()
	closed := func(resp *http.Response) chan time.Time {
		if resp.StatusCode != 200 {
			t.Fatalf("stream: %d", resp.StatusCode)
		}
		done := make(chan time.Time, 1)
		go func() { io.Copy(io.Discard, resp.Body); done <- time.Now() }()
		return done
	}
	remote := closed(do(b, http.MethodGet, "", "Accept", "text/event-stream", "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18"))
	legacy := closed(do(b, http.MethodGet, "", "Accept", "text/event-stream"))
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	cli(t, t.TempDir(), "keys", "revoke", "--database-url", db, key[:13])
	for name, done := range map[string]chan time.Time{"the stream of a session another replica opened": remote, "a legacy stream": legacy} {
		select {
		case at := <-done:
			t.Logf("%s closed %v after the revocation", name, at.Sub(start).Round(time.Millisecond))
		case <-time.After(5 * time.Second):
			t.Errorf("%s still open 5 s after the revocation", name)
		}
	}
}

// OAuth on replicas sharing PostgreSQL and Redis: a token issued by one
// works on the other, its grant's budget is one across both, a revocation
// on one is refused by the other within 2 s; failed logins and page loads
// are counted across replicas too.
func TestOAuthAcrossReplicas(t *testing.T) {
	db, rdb := storetest.PostgresURL(t), ownRedisDB(t)
	flags := []string{"--database-url", db, "--redis-url", rdb, "--public-url", "http://mcpdir.test", "--page-rate-limit", "30"}
	a := startServer(t, "", flags...)
	b := startServer(t, "", flags...)
	clientID, redirect := register(t, a.URL, "Replica Agent")
	ada := signUp(t, a, "ada@example.com")
	verifier, challenge := pkce()
	got := ada.authorize("http://mcpdir.test", clientID, redirect, challenge, "s", "allow")
	code, tok := postForm(t, b.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {got.Get("code")}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}})
	if code != 200 {
		t.Fatalf("the code of replica a exchanged on b: %d %v", code, tok)
	}
	access, refresh := tok["access_token"].(string), tok["refresh_token"].(string)
	for i := range 20 {
		s := []*testServer{a, b}[i%2]
		resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != strconv.Itoa(19-i) {
			t.Fatalf("search %d: %d, remaining %s", i, resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
		}
	}
	if resp := get(t, b.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+access); resp.StatusCode != 401 {
		t.Fatalf("the 21st search across replicas: %d", resp.StatusCode)
	}
	if code, _ := postForm(t, a.URL+"/oauth/revoke", url.Values{"token": {refresh}}); code != 200 {
		t.Fatalf("revoke: %d", code)
	}
	start := time.Now()
	waitFor(t, 2*time.Second, "the revocation on the other replica", func() bool {
		resp := get(t, b.URL+"/api/open/mcp", "Bearer "+access)
		resp.Body.Close()
		return resp.StatusCode == 401
	})
	t.Logf("revoked on the other replica after %v", time.Since(start).Round(time.Millisecond))

	// Failed logins: 10 on a, then b throttles the account.
	for i := range 10 {
		s := []*testServer{a, b}[i%2]
		if code, _ := newBrowser(t, s.URL).do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"wrong password!"}}); code != 401 {
			t.Fatalf("failed login %d: %d", i, code)
		}
	}
	if code, _ := newBrowser(t, b.URL).do("POST", "/login", url.Values{"email": {"ada@example.com"}, "password": {"a long enough password"}}); code != 429 {
		t.Fatalf("the 11th login, on the other replica: %d", code)
	}
	// Pages: the limit of 30 a minute is one across replicas (the pages
	// and logins above counted too, about 15): 30 more, 15 on each, would
	// all pass if each replica counted alone.
	refused := 0
	for i := range 30 {
		resp := get(t, []*testServer{a, b}[i%2].URL+"/", "")
		resp.Body.Close()
		if resp.StatusCode == 429 {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("45 pages across two replicas with a limit of 30 a minute: none refused")
	}
}

// Finding 3 across replicas on PostgreSQL and Redis: a refresh on one
// replica ends the earlier access token on the other (which had it in
// memory) within 2 s; a rotated refresh token replayed on the other
// replica revokes the grant, and the access token the rotation gave stops
// working on both within 2 s.
func TestOAuthRefreshReplayAcrossReplicas(t *testing.T) {
	db, rdb := storetest.PostgresURL(t), ownRedisDB(t)
	flags := []string{"--database-url", db, "--redis-url", rdb, "--public-url", "http://mcpdir.test"}
	a := startServer(t, "", flags...)
	b := startServer(t, "", flags...)
	clientID, redirect := register(t, a.URL, "Replay Agent")
	tok := allowAndExchange(t, signUp(t, a, "ada@example.com"), "http://mcpdir.test", a.URL, clientID, redirect)
	at1, rt1 := tok["access_token"].(string), tok["refresh_token"].(string)
	// Polled through the MCP endpoint's GET, which checks the token
	// without spending the grant's budget (searches would reach its 20
	// an hour and answer 401 rate_limited).
	status := func(s *testServer, access string) int {
		resp := get(t, s.URL+"/api/open/mcp", "Bearer "+access)
		resp.Body.Close()
		if resp.StatusCode != 401 {
			return 200
		}
		return 401
	}
	if c := status(b, at1); c != 200 {
		t.Fatalf("the first access token on b: %d", c)
	}
	refresh := func(s *testServer, token string) (int, map[string]any) {
		return postForm(t, s.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {clientID}})
	}
	code, tok := refresh(a, rt1)
	if code != 200 {
		t.Fatalf("refresh on a: %d %v", code, tok)
	}
	at2, rt2 := tok["access_token"].(string), tok["refresh_token"].(string)
	start := time.Now()
	waitFor(t, 2*time.Second, "the earlier access token ended on b", func() bool { return status(b, at1) == 401 })
	t.Logf("the earlier access token ended on the other replica after %v", time.Since(start).Round(time.Millisecond))
	if c := status(a, at2); c != 200 {
		t.Fatalf("the new access token on a: %d", c)
	}
	if c := status(b, at2); c != 200 {
		t.Fatalf("the new access token on b: %d", c)
	}

	if code, e := refresh(b, rt1); code != 400 || e["error"] != "invalid_grant" {
		t.Fatalf("the rotated refresh token replayed on b: %d %v", code, e)
	}
	start = time.Now()
	waitFor(t, 2*time.Second, "the grant revoked on both replicas", func() bool { return status(a, at2) == 401 && status(b, at2) == 401 })
	t.Logf("the replay revoked the grant on both replicas after %v", time.Since(start).Round(time.Millisecond))
	if code, _ := refresh(a, rt2); code != 400 {
		t.Fatalf("the newer refresh token after the replay: %d", code)
	}
}
