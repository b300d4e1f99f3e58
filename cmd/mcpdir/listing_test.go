package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Issue 35: serve --listing approved serves only what an admin approved,
// through every door (REST search and detail, tool search, the registry
// API, the pages); an approval and its withdrawal reach them within a
// second or so.
func TestApprovedListing(t *testing.T) {
	s := startServer(t, "", "--listing", "approved")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "unlimited")
	postgres := mcpdirEntryID("https://github.com/modelcontextprotocol/servers-archived/tree/main/src/postgres")
	github := mcpdirEntryID("https://github.com/github/github-mcp-server")
	status := func(path, auth string) int {
		resp := get(t, s.URL+path, auth)
		resp.Body.Close()
		return resp.StatusCode
	}
	if n := s.search(t, key, "postgres").Total; n != 0 {
		t.Fatalf("before any approval: %d results", n)
	}
	if c := status("/api/open/v1/servers/"+postgres, "Bearer "+key); c != http.StatusNotFound {
		t.Fatalf("an unapproved entry's detail: %d", c)
	}
	approve := func(id, what string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/admin/v1/entries/"+id+"/"+what, nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d", what, id, resp.StatusCode)
		}
	}
	approve(postgres, "approve")
	waitFor(t, 5*time.Second, "the approved entry in search", func() bool { return s.search(t, key, "postgres").Total == 1 })
	if c := status("/api/open/v1/servers/"+postgres, "Bearer "+key); c != http.StatusOK {
		t.Fatalf("the approved entry's detail: %d", c)
	}
	for _, path := range []string{"/api/open/v1/servers/" + github, "/servers/" + github} {
		if c := status(path, "Bearer "+key); c != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, c)
		}
	}
	if c := status("/servers/"+postgres, ""); c != http.StatusOK {
		t.Errorf("the approved entry's page: %d", c)
	}
	var tools struct {
		Data []struct {
			ServerID string `json:"server_id"`
		} `json:"data"`
	}
	// "create issue" is GitHub's tool (and others'), "query" Postgres's.
	for _, q := range []string{"create+issue", "query"} {
		resp := get(t, s.URL+"/api/open/v1/tools/search?keywords="+q, "Bearer "+key)
		json.NewDecoder(resp.Body).Decode(&tools)
		resp.Body.Close()
		for _, d := range tools.Data {
			if d.ServerID != postgres {
				t.Errorf("tool search served an unapproved server's tool: %s", d.ServerID)
			}
		}
	}
	if len(tools.Data) == 0 {
		t.Error("tool search did not serve the approved server's query tool")
	}
	var list struct {
		Servers []struct {
			Server struct{ Name string } `json:"server"`
		} `json:"servers"`
	}
	resp := get(t, s.URL+"/v0.1/servers", "")
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Servers) != 1 || !strings.Contains(list.Servers[0].Server.Name, "server-postgres") {
		t.Fatalf("the registry API lists %+v", list.Servers)
	}
	approve(postgres, "unapprove")
	waitFor(t, 5*time.Second, "the unapproved entry gone", func() bool { return s.search(t, key, "postgres").Total == 0 })
}
