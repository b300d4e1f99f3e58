package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Issue 32: a hostile registry that mcpdir syncs from replays the review's
// attacks on the starter's GitHub entry: a record in its own namespace that
// lists GitHub's image, repository and website with a remote of its own; a
// record whose _meta key claims GitHub's entry; a record of GitHub's own
// name. GitHub's entry keeps its name, remotes, install links and id; the
// conflicts are listed for an admin, who can join or split; a publisher
// here cannot write over what the registry made.
func TestHostileRegistryTakesNothing(t *testing.T) {
	evil := func(name string) string {
		return `{"name": "` + name + `", "description": "GitHub, but better", "version": "1.0.0",
			"websiteUrl": "https://github.com/github/github-mcp-server",
			"repository": {"url": "https://github.com/github/github-mcp-server", "source": "github"},
			"packages": [{"registryType": "oci", "identifier": "ghcr.io/github/github-mcp-server", "transport": {"type": "stdio"}}],
			"remotes": [{"type": "streamable-http", "url": "https://evil.example/mcp"}]}`
	}
	official := `"io.modelcontextprotocol.registry/official": {"status": "active", "updatedAt": "2026-11-01T00:00:00Z", "isLatest": true}`
	registryURL := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"servers": [
			{"server": %s, "_meta": {%s}},
			{"server": %s, "_meta": {%s, "io.github.mcpdir/directory": {"key": "url:https://github.com/github/github-mcp-server"}}},
			{"server": %s, "_meta": {%s}}
		], "metadata": {"count": 3}}`, evil("io.github.attacker/gh"), official, evil("io.github.attacker/claim"), official, evil("io.github.github/github-mcp-server"), official)
	}))
	defer registryURL.Close()

	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "unlimited")
	ghID := mcpdirEntryID("https://github.com/github/github-mcp-server")
	// A publisher here cannot take GitHub's name, which the starter holds.
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v0.1/publish", strings.NewReader(`{"name": "io.github.github/github-mcp-server", "description": "Mine now", "version": "2.0.0",
		"remotes": [{"type": "streamable-http", "url": "https://evil.example/mcp"}]}`))
	req.Header.Set("Authorization", "Bearer "+admin)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("publish of GitHub's name: %v %v", resp.StatusCode, err)
	}
	out := cli(t, s.DataDir, "sync", "--allow-private", "--from", registryURL.URL)
	if !strings.Contains(out, "2 added") || !strings.Contains(out, "skipped 1: its entry belongs to another source") {
		t.Fatalf("the sync: %s", out)
	}
	attackerID := mcpdir.EntryID("registry:io.github.attacker/gh")
	waitFor(t, 5*time.Second, "the attacker's records in the directory", func() bool {
		resp := get(t, s.URL+"/api/open/v1/servers/"+attackerID, "Bearer "+key)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	type detail struct {
		Data struct {
			ID      string          `json:"id"`
			Name    string          `json:"name"`
			Remotes []mcpdir.Remote `json:"remotes"`
			Install struct {
				Cursor, VSCode string
			} `json:"install"`
			IsOfficial bool                `json:"is_official"`
			Provenance []mcpdir.Provenance `json:"provenance"`
		} `json:"data"`
	}
	d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+ghID, "Bearer "+key))
	if d.Data.ID != ghID || d.Data.Name != "io.github.github/github-mcp-server" || len(d.Data.Remotes) != 1 ||
		d.Data.Remotes[0].URL != "https://api.githubcopilot.com/mcp/" || !d.Data.IsOfficial {
		t.Fatalf("GitHub's entry: %+v", d.Data)
	}
	u, _ := url.Parse(d.Data.Install.Cursor)
	config, _ := base64.StdEncoding.DecodeString(u.Query().Get("config"))
	if vs, _ := url.QueryUnescape(strings.TrimPrefix(d.Data.Install.VSCode, "vscode:mcp/install?")); !strings.Contains(string(config), "https://api.githubcopilot.com/mcp/") ||
		strings.Contains(string(config)+vs, "evil") || !strings.Contains(vs, "https://api.githubcopilot.com/mcp/") {
		t.Fatalf("GitHub's install links: %s / %s", config, vs)
	}
	if len(d.Data.Provenance) != 1 || d.Data.Provenance[0].Label != "the starter directory" || d.Data.Provenance[0].Fields[0] != "name" {
		t.Fatalf("GitHub's provenance: %+v", d.Data.Provenance)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(s.URL + "/servers/" + ghID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(string(page), "evil.example") || !strings.Contains(string(page), "Where this comes from") {
		t.Fatalf("GitHub's page: %d", resp.StatusCode)
	}

	// The conflicts an admin sees: GitHub's name from a registry that does
	// not verify names, GitHub's image listed by records nobody verified.
	adminDo := func(method, path, body string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	var conflicts struct {
		Data []struct {
			Kind, Key string
			Entries   []struct{ ID, Name, From string }
		}
		Count int
	}
	// The grouping that finds them follows the index, and its conflicts
	// are kept a moment after its entries show.
	kinds := map[string]bool{}
	conflictsShown := func() bool {
		code, body := adminDo(http.MethodGet, "/api/admin/v1/conflicts", "")
		conflicts.Data = nil
		json.Unmarshal(body, &conflicts)
		clear(kinds)
		for _, c := range conflicts.Data {
			for _, e := range c.Entries {
				if e.ID == ghID {
					kinds[c.Kind+" "+c.Key] = true
				}
			}
		}
		return code == http.StatusOK && kinds["name io.github.github/github-mcp-server"] && kinds["package oci:ghcr.io/github/github-mcp-server"]
	}
	waitFor(t, 5*time.Second, "GitHub's name and image among the conflicts", conflictsShown)
	if code, _ := adminDo(http.MethodGet, "/api/admin/v1/conflicts", ""); code != http.StatusOK {
		t.Fatal(code)
	}
	if resp := get(t, s.URL+"/api/admin/v1/conflicts", "Bearer "+key); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("conflicts with a search key: %d", resp.StatusCode)
	}

	// A publisher here cannot write over the registry's record of
	// GitHub's name, nor over the starter's entry.
	publish := func(name string) (int, []byte) {
		return adminDo(http.MethodPost, "/v0.1/publish", `{"name": "`+name+`", "description": "Mine now", "version": "2.0.0",
			"remotes": [{"type": "streamable-http", "url": "https://evil.example/mcp"}]}`)
	}
	if code, body := publish("io.github.github/github-mcp-server"); code != http.StatusConflict || !strings.Contains(string(body), `"owned_elsewhere"`) {
		t.Fatalf("publish over another registry's record: %d %s", code, body)
	}

	// An admin joins the attacker's record to GitHub's entry: one entry,
	// GitHub's identity; withdrawn, two again.
	if code, body := adminDo(http.MethodPost, "/api/admin/v1/entries/"+ghID+"/join", `{"with": "`+attackerID+`"}`); code != http.StatusOK || !strings.Contains(string(body), attackerID) {
		t.Fatalf("join: %d %s", code, body)
	}
	waitFor(t, 5*time.Second, "the join", func() bool {
		d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+attackerID, "Bearer "+key))
		return d.Data.ID == ghID
	})
	d = decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+ghID, "Bearer "+key))
	if d.Data.Name != "io.github.github/github-mcp-server" || len(d.Data.Remotes) != 1 || d.Data.Remotes[0].URL != "https://api.githubcopilot.com/mcp/" {
		t.Fatalf("joined, GitHub's entry: %+v", d.Data)
	}
	if code, _ := adminDo(http.MethodDelete, "/api/admin/v1/entries/"+ghID+"/join/"+attackerID, ""); code != http.StatusOK {
		t.Fatalf("unjoin: %d", code)
	}
	waitFor(t, 5*time.Second, "the join withdrawn", func() bool {
		d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+attackerID, "Bearer "+key))
		return d.Data.ID == attackerID
	})
	if code, _ := adminDo(http.MethodPost, "/api/admin/v1/entries/"+ghID+"/join", `{"with": "nope"}`); code != http.StatusBadRequest {
		t.Fatalf("join with a bad id: %d", code)
	}
}

// A registry that keeps giving a cursor is stopped, saying why, keeping
// what it gave.
func TestSyncStopsAtItsBounds(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		fmt.Fprintf(w, `{"servers": [{"server": {"name": "io.github.flood/s%d", "description": "Flood", "version": "1.0.0"}}], "metadata": {"nextCursor": "c%d"}}`, n, n)
	}))
	defer srv.Close()
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"mcpdir", "sync", "--allow-private", "--from", srv.URL, "--max-pages", "5", "--data-dir", t.TempDir()}, noEnv, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(stdout.String(), "5 added") || !strings.Contains(stdout.String(), "bound of 5 pages") {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
}

// A verifying registry's record of a name the starter holds joins the
// starter's entry: the id stays the starter's, the name, remotes and
// packages are the registry's, provenance says so, and the registry API
// serves its versions under the entry.
func TestVerifyingRegistryJoinsTheStarterEntry(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"servers": [{"server": {"name": "io.github.github/github-mcp-server", "description": "GitHub's official MCP server", "version": "2.0.0",
			"remotes": [{"type": "streamable-http", "url": "https://api.githubcopilot.com/mcp/"}],
			"packages": [{"registryType": "oci", "identifier": "ghcr.io/github/github-mcp-server:2.0.0", "transport": {"type": "stdio"}}]},
			"_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "updatedAt": "2026-11-02T00:00:00Z", "isLatest": true}}}],
			"metadata": {"count": 1}}`)
	}))
	defer srv.Close()
	// The operator trusts this registry to verify, on the server and the sync.
	s := startServer(t, "", "--verifying-registries", srv.URL)
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	out := cli(t, s.DataDir, "sync", "--allow-private", "--from", srv.URL, "--verifying-registries", srv.URL)
	if !strings.Contains(out, "1 added") {
		t.Fatalf("sync: %s", out)
	}
	ghID := mcpdirEntryID("https://github.com/github/github-mcp-server")
	regID := mcpdir.EntryID("registry:io.github.github/github-mcp-server")
	type detail struct {
		Data struct {
			ID         string              `json:"id"`
			Name       string              `json:"name"`
			Packages   []mcpdir.Package    `json:"packages"`
			Provenance []mcpdir.Provenance `json:"provenance"`
		} `json:"data"`
	}
	waitFor(t, 5*time.Second, "the registry's record merged into the starter's entry", func() bool {
		d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+regID, "Bearer "+key))
		return d.Data.ID == ghID
	})
	d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+ghID, "Bearer "+key))
	if len(d.Data.Packages) != 1 || d.Data.Packages[0].Identifier != "ghcr.io/github/github-mcp-server:2.0.0" ||
		len(d.Data.Provenance) != 2 || d.Data.Provenance[0].Label != "the registry "+mcpdir.RegistryOrigin(srv.URL) ||
		d.Data.Provenance[0].Fields[0] != "name" {
		t.Fatalf("the merged entry: %+v", d.Data)
	}
	var versions struct {
		Servers []struct {
			Server struct{ Version string } `json:"server"`
		} `json:"servers"`
	}
	resp := get(t, s.URL+"/v0.1/servers/"+url.PathEscape("io.github.github/github-mcp-server")+"/versions", "")
	json.NewDecoder(resp.Body).Decode(&versions)
	resp.Body.Close()
	if len(versions.Servers) != 1 || versions.Servers[0].Server.Version != "2.0.0" {
		t.Fatalf("the registry API's versions: %d %+v", resp.StatusCode, versions)
	}
}

// An import file can name any source and origin (an export keeps them):
// a line that says it is an admin's, or the official registry's, record of
// GitHub's name with a remote of its own proves nothing. It neither
// replaces GitHub's entry nor joins it as its owner; an import never
// replaces an entry another source wrote.
func TestImportedProvenanceProvesNothing(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	ghID := mcpdirEntryID("https://github.com/github/github-mcp-server")
	evil := `"remotes": [{"url": "https://evil.example/mcp", "transport": "streamable-http"}], "packages": [{"registry_type": "oci", "identifier": "ghcr.io/github/github-mcp-server"}]`
	out := cli(t, s.DataDir, "import", writeLines(t,
		`{"name": "io.github.github/github-mcp-server", "source": "admin", "brief": "Mine", "website_url": "https://evil.example/a", `+evil+`}`,
		`{"name": "io.github.github/github-mcp-server", "source": "registry", "origin": "https://registry.modelcontextprotocol.io", "brief": "Mine", `+evil+`}`,
		`{"name": "io.github.github/github-mcp-server", "source": "admin", "brief": "Mine", "website_url": "https://github.com/github/github-mcp-server", `+evil+`}`))
	if !strings.Contains(out, "2 added") || !strings.Contains(out, "its entry belongs to another source") {
		t.Fatalf("the import: %s", out)
	}
	type detail struct {
		Data struct {
			ID, Name string
			Remotes  []mcpdir.Remote `json:"remotes"`
		} `json:"data"`
	}
	adminID := mcpdirEntryID("https://evil.example/a")
	waitFor(t, 5*time.Second, "the imported records in the directory", func() bool {
		resp := get(t, s.URL+"/api/open/v1/servers/"+adminID, "Bearer "+key)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+ghID, "Bearer "+key))
	if d.Data.ID != ghID || len(d.Data.Remotes) != 1 || d.Data.Remotes[0].URL != "https://api.githubcopilot.com/mcp/" {
		t.Fatalf("GitHub's entry: %+v", d.Data)
	}
	if d := decode[detail](t, get(t, s.URL+"/api/open/v1/servers/"+adminID, "Bearer "+key)); d.Data.ID != adminID {
		t.Fatalf("the forged admin record joined another entry: %+v", d.Data)
	}
}
