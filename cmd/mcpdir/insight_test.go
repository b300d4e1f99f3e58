package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/storetest"
)

// insightsBody is GET /api/admin/v1/insights's answer.
type insightsBody struct {
	Days              int                    `json:"days"`
	Searches          []mcpdir.InsightBucket `json:"searches"`
	ZeroResultQueries []mcpdir.QueryStat     `json:"zero_result_queries"`
	TopQueries        []mcpdir.QueryStat     `json:"top_queries"`
	Keys              []mcpdir.KeyStat       `json:"keys"`
}

// door sums a door's buckets.
func (b insightsBody) door(door string) (sum mcpdir.InsightBucket) {
	for _, x := range b.Searches {
		if x.Door == door {
			sum.Searches += x.Searches
			sum.Empty += x.Empty
			sum.Limited += x.Limited
			sum.Refused += x.Refused
		}
	}
	return sum
}

func (b insightsBody) query(list []mcpdir.QueryStat, q string) int64 {
	for _, x := range list {
		if x.Query == q {
			return x.Count
		}
	}
	return 0
}

func (b insightsBody) key(k string) mcpdir.KeyStat {
	for _, x := range b.Keys {
		if x.Key == k {
			return x
		}
	}
	return mcpdir.KeyStat{}
}

func readInsights(t *testing.T, s *testServer, admin string) insightsBody {
	t.Helper()
	resp := get(t, s.URL+"/api/admin/v1/insights?days=1", "Bearer "+admin)
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("insights: %d %s", resp.StatusCode, body)
	}
	return decode[insightsBody](t, resp)
}

func callTool(t *testing.T, cs *sdk.ClientSession, name, keywords string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: map[string]any{"keywords": keywords}})
	if err != nil || res.IsError {
		t.Fatalf("%s %q: %v %+v", name, keywords, err, res)
	}
}

func status(t *testing.T, url, authorization string) int {
	t.Helper()
	resp := get(t, url, authorization)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Searches through every door — REST, MCP (a kept answer too), the web
// page, the registry API, tool search — some answering nothing, a refused
// and a limited request, read back from the admin API within 5 s, as JSON
// and as CSV.
func TestInsightCountsEveryDoor(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	tight := newKey(t, s.DataDir, "--rate-limit", "1/h")
	admin := newKey(t, s.DataDir, "--scope", "admin")
	const nothing = "zxqv plorbnik"
	q := url.QueryEscape
	for _, k := range []string{"Postgres", nothing} {
		if c := status(t, s.URL+"/api/open/v1/search?keywords="+q(k), "Bearer "+key); c != 200 {
			t.Fatalf("REST search %q: %d", k, c)
		}
	}
	if c := status(t, s.URL+"/api/open/v1/tools/search?keywords="+q("run a read-only sql query"), "Bearer "+key); c != 200 {
		t.Fatalf("tool search: %d", c)
	}
	if c := status(t, s.URL+"/api/open/v1/search?keywords=postgres", ""); c != 401 {
		t.Fatalf("no key: %d", c)
	}
	for i, want := range []int{200, 401} { // rate_limited is a 401 (the spec's)
		if c := status(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+tight); c != want {
			t.Fatalf("the tight key's search %d: %d", i, c)
		}
	}
	cs := connectMCP(t, s, "Bearer "+key)
	callTool(t, cs, "search_mcp", "postgres")
	callTool(t, cs, "search_mcp", "postgres") // answered from the kept answers
	callTool(t, cs, "search_mcp", nothing)
	callTool(t, cs, "search_tools", "geocode an address")
	for _, k := range []string{"GitHub", nothing} {
		if c := status(t, s.URL+"/?q="+q(k), ""); c != 200 {
			t.Fatalf("the search page %q: %d", k, c)
		}
		if c := status(t, s.URL+"/v0.1/servers?search="+q(strings.ToLower(k)), ""); c != 200 {
			t.Fatalf("the registry API's search %q: %d", k, c)
		}
	}
	if c := status(t, s.URL+"/v0.1/servers?search=postgres", ""); c != 200 {
		t.Fatal(c)
	}
	var got insightsBody
	waitFor(t, 5*time.Second, "every door's searches in the insight", func() bool {
		got = readInsights(t, s, admin)
		return got.door(mcpdir.DoorREST).Searches == 3 && got.door(mcpdir.DoorMCP).Searches == 3 && got.door(mcpdir.DoorWeb).Searches == 2 &&
			got.door(mcpdir.DoorRegistry).Searches == 3 && got.door(mcpdir.DoorTools).Searches == 2 && got.key(key[:13]).Requests == 7
	})
	if got.Days != 1 {
		t.Errorf("days: %d", got.Days)
	}
	for door, want := range map[string]mcpdir.InsightBucket{
		mcpdir.DoorREST:     {Searches: 3, Empty: 1, Limited: 1, Refused: 1},
		mcpdir.DoorMCP:      {Searches: 3, Empty: 1},
		mcpdir.DoorWeb:      {Searches: 2, Empty: 1},
		mcpdir.DoorRegistry: {Searches: 3, Empty: 1},
	} {
		if g := got.door(door); g != want {
			t.Errorf("door %s: %+v, want %+v", door, g, want)
		}
	}
	if n := got.query(got.ZeroResultQueries, nothing); n != 4 {
		t.Errorf("%q answered nothing %d times, want 4: %+v", nothing, n, got.ZeroResultQueries)
	}
	if n := got.query(got.TopQueries, "postgres"); n != 5 {
		t.Errorf("postgres asked %d times, want 5 (REST 2, MCP 2, registry 1): %+v", n, got.TopQueries)
	}
	if got.query(got.ZeroResultQueries, "postgres") != 0 {
		t.Errorf("postgres answered nothing: %+v", got.ZeroResultQueries)
	}
	if k := got.key(tight[:13]); k.Requests != 2 || k.Limited != 1 {
		t.Errorf("the tight key: %+v", k)
	}
	for _, x := range append(got.TopQueries, got.ZeroResultQueries...) {
		if strings.Contains(x.Query, "mcpd_") || strings.Contains(x.Query, "127.0.0.1") {
			t.Errorf("a query text holds a key or an address: %q", x.Query)
		}
	}

	// CSV: one table, a row per item of each list.
	req, _ := http.NewRequest("GET", s.URL+"/api/admin/v1/insights?days=1", nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	req.Header.Set("Accept", "text/csv")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("CSV: %d %s", resp.StatusCode, ct)
	}
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "list,hour,door,query,key,searches,empty,limited,refused,count,requests,last_seen" {
		t.Fatalf("CSV header: %v", rows[0])
	}
	found := map[string]bool{}
	for _, r := range rows[1:] {
		switch {
		case r[0] == "zero_result_queries" && r[3] == nothing && r[9] == "4":
			found["zero"] = true
		case r[0] == "top_queries" && r[3] == "postgres" && r[9] == "5":
			found["top"] = true
		case r[0] == "keys" && r[4] == tight[:13] && r[10] == "2" && r[7] == "1":
			found["key"] = true
		case r[0] == "searches" && r[2] == mcpdir.DoorWeb && r[5] == "2":
			found["web"] = true
		}
	}
	if len(found) != 4 {
		t.Fatalf("CSV rows found: %v\n%v", found, rows)
	}
	if c := status(t, s.URL+"/api/admin/v1/insights?days=31", "Bearer "+admin); c != 400 {
		t.Errorf("days past the retention: %d", c)
	}
}

// With --query-log off, the insight counts searches and keeps no text.
func TestInsightQueryLogOff(t *testing.T) {
	s := startServer(t, "", "--query-log", "off", "--insight-days", "3")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	admin := newKey(t, s.DataDir, "--scope", "admin")
	for _, k := range []string{"postgres", "zxqv+plorbnik"} {
		if c := status(t, s.URL+"/api/open/v1/search?keywords="+k, "Bearer "+key); c != 200 {
			t.Fatal(c)
		}
	}
	var got insightsBody
	waitFor(t, 5*time.Second, "the counts", func() bool {
		got = readInsights(t, s, admin)
		return got.door(mcpdir.DoorREST).Searches == 2
	})
	if got.door(mcpdir.DoorREST).Empty != 1 || len(got.TopQueries)+len(got.ZeroResultQueries) != 0 {
		t.Fatalf("with the query log off: %+v", got)
	}
	if c := status(t, s.URL+"/api/admin/v1/insights?days=4", "Bearer "+admin); c != 400 {
		t.Errorf("days past --insight-days 3: %d", c)
	}
}

// Two replicas on one PostgreSQL database, searched at once: the insight
// is the exact sum of both.
func TestInsightAcrossReplicas(t *testing.T) {
	db := storetest.PostgresURL(t)
	a := startServer(t, "", "--database-url", db)
	b := startServer(t, "", "--database-url", db)
	key := newKey(t, t.TempDir(), "--database-url", db, "--rate-limit", "unlimited")
	admin := newKey(t, t.TempDir(), "--database-url", db, "--scope", "admin")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 20}}
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			s, k := a, "postgres"
			if i%2 == 1 {
				s = b
			}
			if i%3 == 0 {
				k = "zxqv+plorbnik"
			}
			req, _ := http.NewRequest("GET", s.URL+"/api/open/v1/search?keywords="+k, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	var got insightsBody
	waitFor(t, 5*time.Second, "both replicas' counts", func() bool {
		got = readInsights(t, b, admin)
		return got.door(mcpdir.DoorREST).Searches >= 60
	})
	time.Sleep(1500 * time.Millisecond) // a flush more: nothing else arrives
	got = readInsights(t, a, admin)
	rest := got.door(mcpdir.DoorREST)
	if rest.Searches != 60 || rest.Empty != 20 {
		t.Errorf("REST on both replicas: %+v, want 60 searches, 20 empty", rest)
	}
	if n := got.query(got.TopQueries, "postgres"); n != 40 {
		t.Errorf("postgres: %d, want 40", n)
	}
	if n := got.query(got.ZeroResultQueries, "zxqv plorbnik"); n != 20 {
		t.Errorf("zxqv plorbnik answered nothing %d times, want 20", n)
	}
	if k := got.key(key[:13]); k.Requests != 60 {
		t.Errorf("the key: %+v, want 60 requests", k)
	}
	if t.Failed() {
		t.Log(fmt.Sprintf("%+v", got))
	}
}
