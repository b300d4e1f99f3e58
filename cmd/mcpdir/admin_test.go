package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The admin API end to end with real keys: a search key is refused (403),
// no key is 401; an admin creates, reads, replaces and deletes an entry,
// which search sees within a second; admin calls do not spend the search
// budget; the export is NDJSON that import takes back unchanged.
func TestAdminAPI(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "20/h")
	searchKey := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	do := func(method, path, key, body string) (*http.Response, string) {
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	record := `{"name": "heron-mcp", "brief": "Heron sightings", "website_url": "https://example.com/heron", "tags": ["birds"]}`
	if resp, body := do("POST", "/api/admin/v1/entries", searchKey, record); resp.StatusCode != 403 || !strings.Contains(body, `"forbidden"`) {
		t.Fatalf("a search key: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do("POST", "/api/admin/v1/entries", "", record); resp.StatusCode != 401 {
		t.Fatalf("no key: %d", resp.StatusCode)
	}
	resp, body := do("POST", "/api/admin/v1/entries", admin, record)
	var created struct{ ID, Name, Brief, Source string }
	json.Unmarshal([]byte(body), &created)
	if resp.StatusCode != 201 || created.ID == "" || resp.Header.Get("Location") != "/api/admin/v1/entries/"+created.ID || created.Source != "admin" {
		t.Fatalf("create: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := do("POST", "/api/admin/v1/entries", admin, record); resp.StatusCode != 409 {
		t.Errorf("create again: %d", resp.StatusCode)
	}
	if resp, _ := do("POST", "/api/admin/v1/entries", admin, `{"name": "x", "website_url": "javascript:alert(1)"}`); resp.StatusCode != 400 {
		t.Errorf("an invalid record: %d", resp.StatusCode)
	}
	waitFor(t, 2*time.Second, "the created entry in search", func() bool { return s.search(t, searchKey, "heron").Total == 1 })
	if resp, body := do("GET", "/api/admin/v1/entries/"+created.ID, admin, ""); resp.StatusCode != 200 || !strings.Contains(body, "Heron sightings") {
		t.Errorf("get: %d %s", resp.StatusCode, body)
	}
	replaced := strings.Replace(record, "Heron sightings", "Heron and egret sightings", 1)
	if resp, body := do("PUT", "/api/admin/v1/entries/"+created.ID, admin, replaced); resp.StatusCode != 200 || !strings.Contains(body, "egret") {
		t.Errorf("replace: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do("PUT", "/api/admin/v1/entries/"+created.ID, admin, strings.Replace(record, "/heron", "/crane", 1)); resp.StatusCode != 400 {
		t.Errorf("a replacement with another website: %d", resp.StatusCode)
	}
	waitFor(t, 2*time.Second, "the replacement in search", func() bool { return s.search(t, searchKey, "egret").Total == 1 })

	// Export, then import into a fresh directory and back into this one.
	resp, body = do("GET", "/api/admin/v1/export", admin, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" || resp.Trailer.Get("X-Export-Count") != "1" {
		t.Fatalf("export: %d %v %v", resp.StatusCode, resp.Header, resp.Trailer)
	}
	export := writeLines(t, strings.TrimSpace(body))
	if out := cli(t, s.DataDir, "import", export); !strings.Contains(out, "0 added, 0 updated, 1 unchanged, 0 skipped") {
		t.Errorf("the export back into its directory: %s", out)
	}
	other := t.TempDir()
	cli(t, other, "import", export)
	var exported, moved map[string]any
	json.Unmarshal([]byte(strings.TrimSpace(body)), &exported)
	o := startServer(t, other, "--no-starter")
	oadmin := newKey(t, other, "--scope", "admin")
	_, got := func() (*http.Response, string) {
		req, _ := http.NewRequest("GET", o.URL+"/api/admin/v1/entries/"+created.ID, nil)
		req.Header.Set("Authorization", "Bearer "+oadmin)
		r, _ := http.DefaultClient.Do(req)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		return r, string(b)
	}()
	json.Unmarshal([]byte(got), &moved)
	for _, f := range []string{"id", "created_at", "updated_at", "source", "brief", "tags"} {
		if a, b := mustJSON(t, exported[f]), mustJSON(t, moved[f]); string(a) != string(b) {
			t.Errorf("%s changed in the round trip: %s → %s", f, a, b)
		}
	}

	if resp, _ := do("DELETE", "/api/admin/v1/entries/"+created.ID, admin, ""); resp.StatusCode != 204 {
		t.Errorf("delete: %d", resp.StatusCode)
	}
	if resp, _ := do("DELETE", "/api/admin/v1/entries/"+created.ID, admin, ""); resp.StatusCode != 404 {
		t.Errorf("delete again: %d", resp.StatusCode)
	}
	waitFor(t, 2*time.Second, "the deleted entry gone from search", func() bool { return s.search(t, searchKey, "heron").Total == 0 })
	// Admin calls spent the admin budget, not the search one (20/h each).
	resp = get(t, s.URL+"/api/open/v1/search?keywords=heron", "Bearer "+admin)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "19" {
		t.Errorf("the admin key's search budget after admin calls: %d, remaining %q", resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
	}
}
