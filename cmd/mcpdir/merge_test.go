package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOneServerOneEntry imports, next to the starter directory, the npm
// package that the starter's io.github.modelcontextprotocol/server-postgres
// publishes, and checks through the real server that they are one entry:
// search shows it once, the package's id finds it in get_mcp_detail, REST
// detail and on the web, and an admin's split (on the admin API) parts them on every
// door within a second, and its withdrawal joins them again.
func TestOneServerOneEntry(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "unlimited")
	cli(t, s.DataDir, "import", writeLines(t,
		`{"name": "@modelcontextprotocol/server-postgres", "brief": "MCP server for interacting with PostgreSQL databases", "website_url": "https://www.npmjs.com/package/@modelcontextprotocol/server-postgres", "registry": "npm", "version": "0.6.2", "downloads": 251900}`))
	pkgID := mcpdirEntryID("https://www.npmjs.com/package/@modelcontextprotocol/server-postgres")
	postgres := func() (ids []string) {
		for _, d := range s.search(t, key, "postgres").Data {
			if strings.Contains(d.Name, "server-postgres") {
				ids = append(ids, d.ID)
			}
		}
		return ids
	}
	// The import reaches the server through the change feed: its
	// downloads show in the merged entry.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	waitFor(t, 5*time.Second, "the import merged into the starter's entry", func() bool {
		resp, err := noRedirect.Get(s.URL + "/servers/" + pkgID)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusMovedPermanently
	})
	ids := postgres()
	if len(ids) != 1 || ids[0] != mcpdirEntryID("https://github.com/modelcontextprotocol/servers-archived/tree/main/src/postgres") {
		t.Fatalf("postgres: %v, want the starter's entry alone", ids)
	}
	entryID := ids[0]

	cs := connectMCP(t, s, "Bearer "+key)
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "get_mcp_detail", Arguments: map[string]any{"mcp_id": pkgID}})
	if err != nil || res.IsError {
		t.Fatalf("get_mcp_detail by the package's id: %v %+v", err, res)
	}
	var detail struct {
		Data struct {
			ID         string `json:"id"`
			Popularity int64  `json:"popularity"`
			Aliases    []struct {
				ID, Source string
			} `json:"aliases"`
		} `json:"data"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &detail)
	if detail.Data.ID != entryID || detail.Data.Popularity != 251900 || len(detail.Data.Aliases) != 1 ||
		detail.Data.Aliases[0].ID != pkgID || detail.Data.Aliases[0].Source != "import" {
		t.Fatalf("get_mcp_detail by the package's id: %s", raw)
	}
	// REST detail too.
	rest := get(t, s.URL+"/api/open/v1/servers/"+pkgID, "Bearer "+key)
	var restDetail struct{ Data struct{ ID string } }
	json.NewDecoder(rest.Body).Decode(&restDetail)
	rest.Body.Close()
	if rest.StatusCode != http.StatusOK || restDetail.Data.ID != entryID {
		t.Fatalf("REST detail by the package's id: %d %+v", rest.StatusCode, restDetail)
	}
	resp, err := noRedirect.Get(s.URL + "/servers/" + pkgID)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/servers/"+entryID {
		t.Fatalf("the package's page: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	// An admin parts them; and joins them again.
	adminDo := func(method, path, body string, want int) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d", method, path, resp.StatusCode, want)
		}
	}
	adminDo(http.MethodPost, "/api/admin/v1/entries/"+entryID+"/split", `{"from": "`+pkgID+`"}`, http.StatusOK)
	waitFor(t, 5*time.Second, "the split", func() bool { return len(postgres()) == 2 })
	adminDo(http.MethodDelete, "/api/admin/v1/entries/"+entryID+"/split/"+pkgID, "", http.StatusOK)
	waitFor(t, 5*time.Second, "the join", func() bool { return len(postgres()) == 1 })
	adminDo(http.MethodPost, "/api/admin/v1/entries/"+entryID+"/split", `{"from": "00000000-0000-5000-8000-000000000000"}`, http.StatusNotFound)
	adminDo(http.MethodPost, "/api/admin/v1/entries/"+entryID+"/split", `{"from": "not an id"}`, http.StatusBadRequest)
}
