package registryapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/search"
)

// serve serves api's routes for the test.
func serve(t *testing.T, api *registryapi.API) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	api.Routes(mux, nil)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// directory is a search index over entries, as the server serves it.
func directory(t *testing.T, entries ...*mcpdir.Entry) (*search.Index, *httptest.Server) {
	t.Helper()
	x := search.New()
	x.Upsert(entries...)
	srv := serve(t, &registryapi.API{Dir: x, MaxAge: time.Minute})
	return x, srv
}

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func entry(name, brief string, mod func(*mcpdir.Entry)) *mcpdir.Entry {
	e := &mcpdir.Entry{Name: name, Brief: brief, WebsiteURL: "https://www.npmjs.com/package/" + name,
		Packages: []mcpdir.Package{{RegistryType: "npm", Identifier: name, Version: "1.2.3"}},
		Version:  "1.2.3", CreatedAt: epoch, UpdatedAt: epoch}
	if mod != nil {
		mod(e)
	}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	return e
}

type list struct {
	Servers []struct {
		Server map[string]any             `json:"server"`
		Meta   map[string]json.RawMessage `json:"_meta"`
	} `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

func get(t *testing.T, u string, want int, into any) *http.Response {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d", u, resp.StatusCode, want)
	}
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
	}
	return resp
}

func names(l list) []string {
	var out []string
	for _, s := range l.Servers {
		out = append(out, s.Server["name"].(string))
	}
	return out
}

// allPages is every page of the list u asks for (a query without a
// cursor), following the cursors to the end.
func allPages(t *testing.T, u string) []list {
	t.Helper()
	var pages []list
	for cursor := ""; len(pages) < 10000; {
		var l list
		get(t, u+"&cursor="+url.QueryEscape(cursor), http.StatusOK, &l)
		pages = append(pages, l)
		if cursor = l.Metadata.NextCursor; cursor == "" {
			return pages
		}
	}
	t.Fatalf("%s: still a next cursor after %d pages", u, len(pages))
	return nil
}

// TestPagesEveryServerOnce pages through the whole directory with small
// pages while entries are written between them: every entry there from the
// start is met exactly once, in name order, and count says a page's size.
func TestPagesEveryServerOnce(t *testing.T) {
	var es []*mcpdir.Entry
	for i := range 53 {
		es = append(es, entry(fmt.Sprintf("tool-%02d", i), "A tool", nil))
	}
	x, srv := directory(t, es...)
	seen := map[string]int{}
	var order []string
	cursor := ""
	for page := 0; ; page++ {
		var l list
		get(t, srv.URL+"/v0.1/servers?limit=7&cursor="+url.QueryEscape(cursor), http.StatusOK, &l)
		if l.Metadata.Count != len(l.Servers) || len(l.Servers) > 7 {
			t.Fatalf("page %d: count %d of %d servers", page, l.Metadata.Count, len(l.Servers))
		}
		for _, n := range names(l) {
			seen[n]++
			order = append(order, n)
		}
		// Writes between pages: a new entry before and after the cursor,
		// and one replaced.
		x.Upsert(entry(fmt.Sprintf("aaa-%d", page), "new", nil), entry(fmt.Sprintf("zzz-%d", page), "new", nil),
			entry("tool-03", fmt.Sprintf("replaced %d", page), nil))
		if cursor = l.Metadata.NextCursor; cursor == "" {
			break
		}
	}
	for _, e := range es {
		if n := seen["com.npmjs/"+e.Name]; n != 1 {
			t.Errorf("%s met %d times", e.Name, n)
		}
	}
	for n, c := range seen {
		if c != 1 {
			t.Errorf("%s met %d times", n, c)
		}
	}
	if !slices.IsSorted(order) {
		t.Errorf("not in name order: %v", order)
	}
}

// TestSearchRanks checks that search uses the directory's ranking (not a
// substring match: "databases" finds Postgres), pages its matches, and
// says each one's score.
func TestSearchRanks(t *testing.T) {
	_, srv := directory(t,
		entry("pg-tool", "Query PostgreSQL databases", nil),
		entry("weather-now", "Weather forecasts", nil),
		entry("mysql-tool", "MySQL database access", nil),
		entry("db-admin", "Administer your databases and tables", nil),
	)
	var all list
	get(t, srv.URL+"/v0.1/servers?search=databases", http.StatusOK, &all)
	got := names(all)
	if len(got) < 2 || slices.Contains(got, "com.npmjs/weather-now") {
		t.Fatalf("search=databases: %v", got)
	}
	var prev float64 = 1e9
	for _, s := range all.Servers {
		var dm struct{ Score *float64 }
		json.Unmarshal(s.Meta[registryapi.DirectoryMeta], &dm)
		if dm.Score == nil || *dm.Score > prev {
			t.Fatalf("scores missing or out of order: %s", s.Meta[registryapi.DirectoryMeta])
		}
		prev = *dm.Score
	}
	var paged []string
	for _, l := range allPages(t, srv.URL+"/v0.1/servers?search=databases&limit=1") {
		paged = append(paged, names(l)...)
	}
	if !slices.Equal(paged, got) {
		t.Errorf("paged %v, want %v", paged, got)
	}
	// A cursor of the list is no cursor of a search.
	var l list
	get(t, srv.URL+"/v0.1/servers?limit=1", http.StatusOK, &l)
	get(t, srv.URL+"/v0.1/servers?search=databases&cursor="+l.Metadata.NextCursor, http.StatusBadRequest, nil)
}

func TestUpdatedSinceAndVersion(t *testing.T) {
	later := epoch.Add(time.Hour)
	_, srv := directory(t,
		entry("old-tool", "Old", nil),
		entry("new-tool", "New", func(e *mcpdir.Entry) { e.UpdatedAt, e.Version = later, "2.0.0" }),
	)
	var l list
	get(t, srv.URL+"/v0.1/servers?updated_since="+epoch.Add(time.Minute).Format(time.RFC3339), http.StatusOK, &l)
	if got := names(l); !slices.Equal(got, []string{"com.npmjs/new-tool"}) {
		t.Errorf("updated_since: %v", got)
	}
	get(t, srv.URL+"/v0.1/servers?version=2.0.0", http.StatusOK, &l)
	if got := names(l); !slices.Equal(got, []string{"com.npmjs/new-tool"}) {
		t.Errorf("version=2.0.0: %v", got)
	}
	get(t, srv.URL+"/v0.1/servers?version=latest", http.StatusOK, &l)
	if len(l.Servers) != 2 {
		t.Errorf("version=latest: %v", names(l))
	}
}

func TestVersions(t *testing.T) {
	_, srv := directory(t, entry("@acme/tool", "A tool", nil))
	name := url.PathEscape("com.npmjs/acme.tool")
	var l list
	get(t, srv.URL+"/v0.1/servers/"+name+"/versions", http.StatusOK, &l)
	if len(l.Servers) != 1 || l.Servers[0].Server["version"] != "1.2.3" {
		t.Fatalf("versions: %+v", l)
	}
	for _, v := range []string{"latest", "1.2.3"} {
		var one struct {
			Server map[string]any             `json:"server"`
			Meta   map[string]json.RawMessage `json:"_meta"`
		}
		get(t, srv.URL+"/v0.1/servers/"+name+"/versions/"+v, http.StatusOK, &one)
		if one.Server["name"] != "com.npmjs/acme.tool" || one.Meta[registryapi.OfficialMeta] == nil {
			t.Errorf("version %s: %+v", v, one)
		}
	}
	for _, u := range []string{"/v0.1/servers/" + name + "/versions/9.9.9", "/v0.1/servers/com.npmjs%2Fnope/versions",
		"/v0.1/servers/com.npmjs%2Fnope/versions/latest"} {
		var e struct{ Error string }
		get(t, srv.URL+u, http.StatusNotFound, &e)
		if e.Error == "" {
			t.Errorf("%s: no error message", u)
		}
	}
}

func TestBadRequests(t *testing.T) {
	_, srv := directory(t, entry("tool", "A tool", nil))
	for _, q := range []string{"limit=0", "limit=abc", "updated_since=yesterday", "include_deleted=maybe",
		"cursor=%%%", "cursor=" + url.QueryEscape("bm90LWEtY3Vyc29y"), "search=" + strings.Repeat("a", 1100)} {
		var e struct{ Error string }
		get(t, srv.URL+"/v0.1/servers?"+q, http.StatusBadRequest, &e)
		if e.Error == "" {
			t.Errorf("%s: no error message", q)
		}
	}
	var l list
	get(t, srv.URL+"/v0.1/servers?limit=100000", http.StatusOK, &l) // capped, not refused
}

// TestETag checks that an unchanged answer costs a 304, and a change a 200.
func TestETag(t *testing.T) {
	x, srv := directory(t, entry("tool", "A tool", nil))
	resp := get(t, srv.URL+"/v0.1/servers", http.StatusOK, nil)
	etag := resp.Header.Get("ETag")
	if etag == "" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age=60") {
		t.Fatalf("headers: %v", resp.Header)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v0.1/servers", nil)
	req.Header.Set("If-None-Match", etag)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", r2.StatusCode)
	}
	x.Upsert(entry("other", "Another", nil))
	r3, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r3.Body.Close()
	if r3.StatusCode != http.StatusOK {
		t.Errorf("after a change: %d, want 200", r3.StatusCode)
	}
}

// TestRecords checks how entries become server records: a registry's as
// published (what breaks the schema fixed, and said), others converted
// without losing what installs or connects them, and two entries that
// derive one name kept apart.
func TestRecords(t *testing.T) {
	published := `{"name":"io.github.acme/weather","description":"` + strings.Repeat("Forecasts for every city. ", 6) +
		`","version":"0.4.0","packages":[{"registryType":"npm","identifier":"@acme/weather","version":"0.4.0",` +
		`"transport":{"type":"stdio"},"environmentVariables":[{"name":"API_KEY","isSecret":true}]}]}`
	reg := entry("io.github.acme/weather", "Forecasts for every city.", func(e *mcpdir.Entry) {
		e.Source = mcpdir.SourceRegistry
		e.Extra = mcpdir.NewExtra(map[string]json.RawMessage{"server": json.RawMessage(published),
			"registry_meta": json.RawMessage(`{"status":"active","publishedAt":"2025-05-01T00:00:00Z","isLatest":true}`)})
	})
	hosted := entry("hosted", "A hosted server", func(e *mcpdir.Entry) {
		e.Packages = nil
		e.WebsiteURL = "https://hosted.example.com/docs"
		e.RepositoryURL = "https://github.com/acme/hosted"
		e.Remotes = []mcpdir.Remote{{URL: "https://hosted.example.com/mcp", Transport: mcpdir.TransportStreamableHTTP}}
		e.Tags = []string{"weather"}
	})
	twin := entry("io.github.acme/weather", "The same name from elsewhere", func(e *mcpdir.Entry) {
		e.WebsiteURL = "https://elsewhere.example.org/weather"
	})
	_, srv := directory(t, reg, hosted, twin)
	var l list
	get(t, srv.URL+"/v0.1/servers", http.StatusOK, &l)
	by := map[string]int{}
	for i, n := range names(l) {
		by[n] = i
	}
	r := l.Servers[by["io.github.acme/weather"]]
	if d := r.Server["description"].(string); len([]rune(d)) > 100 || !strings.HasSuffix(d, "…") {
		t.Errorf("description not fitted: %q", d)
	}
	pkg := r.Server["packages"].([]any)[0].(map[string]any)
	if pkg["environmentVariables"] == nil {
		t.Errorf("the published record lost its environment variables: %v", pkg)
	}
	var dm struct {
		ID      string
		Changed []string
		Brief   string
	}
	json.Unmarshal(r.Meta[registryapi.DirectoryMeta], &dm)
	if dm.ID != reg.ID || !slices.Contains(dm.Changed, "description") {
		t.Errorf("directory meta: %+v", dm)
	}
	var om struct {
		Status      string
		PublishedAt time.Time
		IsLatest    bool
	}
	json.Unmarshal(r.Meta[registryapi.OfficialMeta], &om)
	if om.Status != "active" || !om.IsLatest || !om.PublishedAt.Equal(time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("official meta: %+v", om)
	}
	h := l.Servers[by["com.example.hosted/hosted"]]
	remotes, _ := h.Server["remotes"].([]any)
	repo, _ := h.Server["repository"].(map[string]any)
	if len(remotes) != 1 || repo["source"] != "github" || h.Server["websiteUrl"] != "https://hosted.example.com/docs" {
		t.Errorf("converted: %+v", h.Server)
	}
	twinName := "io.github.acme/weather-" + strings.ReplaceAll(twin.ID, "-", "")[:8]
	if _, ok := by[twinName]; !ok {
		t.Errorf("the entry of the same name from elsewhere is not %s: %v", twinName, names(l))
	}
}
