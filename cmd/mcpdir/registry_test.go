package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// registryServers pages through a registry API's /v0.1/servers (with
// query, e.g. include_deleted=true) and returns each server version's
// official status and its entry's id, by name and version.
func registryServers(t *testing.T, base, auth, query string) map[string]string {
	t.Helper()
	out := map[string]string{}
	cursor := ""
	for range 1000 {
		req, _ := http.NewRequest(http.MethodGet, base+"/v0.1/servers?limit=40&"+query+"&cursor="+url.QueryEscape(cursor), nil)
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Servers []struct {
				Server struct{ Name, Version string } `json:"server"`
				Meta   struct {
					Official  struct{ Status string } `json:"io.modelcontextprotocol.registry/official"`
					Directory struct{ ID string }     `json:"io.github.mcpdir/directory"`
				} `json:"_meta"`
			} `json:"servers"`
			Metadata struct{ NextCursor string } `json:"metadata"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("GET %s/v0.1/servers: %d %v", base, resp.StatusCode, err)
		}
		for _, s := range page.Servers {
			k := s.Server.Name + "@" + s.Server.Version
			if _, dup := out[k]; dup {
				t.Fatalf("%s served twice", k)
			}
			out[k] = s.Meta.Official.Status + " " + s.Meta.Directory.ID
		}
		if cursor = page.Metadata.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("paging did not end")
	return nil
}

// publish sends a write to a registry API with a key and returns the status.
func publish(t *testing.T, method, u, key string, body any) int {
	t.Helper()
	var r *strings.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	} else {
		r = strings.NewReader("")
	}
	req, _ := http.NewRequest(method, u, r)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func serverJSON(name, version string) map[string]any {
	return map[string]any{"name": name, "version": version, "description": "Internal deploys, version " + version,
		"packages": []any{map[string]any{"registryType": "npm", "identifier": "@acme/deploy", "version": version, "transport": map[string]any{"type": "stdio"}}}}
}

// TestRegistryFederation proves the registry API both ways: one mcpdir
// serves its directory (the starter directory, an import, and versions
// published through its write side with an admin key) as a registry, and
// a second follows it with mcpdir sync --from and ends with the same
// server versions, status and entry ids; later incremental syncs
// (updated_since) bring only what changed, deletions included.
func TestRegistryFederation(t *testing.T) {
	a := startServer(t, "", "--registry-rate-limit", "0") // the test polls
	admin := newKey(t, a.DataDir, "--scope", "admin", "--rate-limit", "unlimited")
	search := newKey(t, a.DataDir)
	const name = "com.acme/deploy"
	at := a.URL + "/v0.1/servers/" + url.PathEscape(name) + "/versions/"
	if code := publish(t, http.MethodPut, at+"1.0.0", search, serverJSON(name, "1.0.0")); code != http.StatusForbidden {
		t.Fatalf("publishing with a search key: %d, want 403", code)
	}
	if code := publish(t, http.MethodPut, at+"1.0.0", "", serverJSON(name, "1.0.0")); code != http.StatusUnauthorized {
		t.Fatalf("publishing without a key: %d, want 401", code)
	}
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0-beta.1"} {
		if code := publish(t, http.MethodPut, at+v, admin, serverJSON(name, v)); code != http.StatusOK {
			t.Fatalf("publishing %s: %d", v, code)
		}
	}
	if code := publish(t, http.MethodDelete, at+"1.0.0", admin, nil); code != http.StatusOK {
		t.Fatalf("deleting 1.0.0: %d", code)
	}
	waitFor(t, 60*time.Second, "the published versions in the first's registry API", func() bool {
		got := registryServers(t, a.URL, "", "include_deleted=true&search=&version=")
		return strings.HasPrefix(got[name+"@1.0.0"], "deleted") && strings.HasPrefix(got[name+"@1.1.0"], "active") &&
			strings.HasPrefix(got[name+"@2.0.0-beta.1"], "active")
	})
	want := registryServers(t, a.URL, "", "include_deleted=true")
	if len(want) < 50 || !strings.HasPrefix(want[name+"@1.1.0"], "active") {
		t.Fatalf("the first registry serves %d server versions: %v", len(want), want[name+"@1.1.0"])
	}
	b := t.TempDir()
	out := cli(t, b, "sync", "--allow-private", "--from", a.URL)
	if !strings.Contains(out, fmt.Sprintf("%d versions recorded", len(want))) {
		t.Fatalf("first sync: %s", out)
	}
	sb := startServer(t, b, "--no-starter", "--registry-rate-limit", "0")
	if got := registryServers(t, sb.URL, "", "include_deleted=true"); !mapsEqual(got, want) {
		t.Fatalf("the mirror serves %d server versions, the first %d; they differ: %v", len(got), len(want), diff(got, want))
	}

	// A new server and a deletion in the first: the mirror's next sync asks
	// for what was updated since its last, and brings just that.
	records := filepath.Join(t.TempDir(), "new.jsonl")
	os.WriteFile(records, []byte(`{"name":"@acme/kite","brief":"Fly a kite from an agent","website_url":"https://www.npmjs.com/package/@acme/kite","registry":"npm","version":"0.3.0"}`+"\n"), 0o600)
	cli(t, a.DataDir, "import", records)
	if code := publish(t, http.MethodPatch, a.URL+"/v0.1/servers/"+url.PathEscape(name)+"/status", admin, map[string]string{"status": "deleted"}); code != http.StatusOK {
		t.Fatalf("deleting every version: %d", code)
	}
	// Both writes reach the first's registry API through its change feed:
	// the sync below must find them there. (Bounds are generous: a loaded
	// machine is slow, and a condition met early costs nothing.)
	waitFor(t, 60*time.Second, "the import and the deletion in the first's registry API", func() bool {
		got := registryServers(t, a.URL, "", "include_deleted=true")
		_, ok := got["com.npmjs/acme.kite@0.3.0"]
		for _, v := range []string{"1.0.0", "1.1.0", "2.0.0-beta.1"} {
			ok = ok && strings.HasPrefix(got[name+"@"+v], "deleted")
		}
		return ok
	})
	out = cli(t, b, "sync", "--allow-private", "--from", a.URL)
	if !strings.Contains(out, "3 versions recorded; entries: 1 added, 0 updated, 0 unchanged, 1 hidden") {
		t.Errorf("incremental sync: %s", out)
	}
	want = registryServers(t, a.URL, "", "include_deleted=true")
	waitFor(t, 60*time.Second, "the mirror to serve what the first does", func() bool {
		return mapsEqual(registryServers(t, sb.URL, "", "include_deleted=true"), want)
	})
	// The deleted server left the mirror's directory: search does not find it.
	key := newKey(t, b)
	for _, d := range sb.search(t, key, "internal deploys").Data {
		if d.Name == name {
			t.Errorf("a server deleted in the first is found in the mirror: %+v", d)
		}
	}
}

// TestRegistryAccess checks --registry-api: key asks for a key (and spends
// no search budget), off serves nothing.
func TestRegistryAccess(t *testing.T) {
	s := startServer(t, "", "--registry-api", "key")
	resp, err := http.Get(s.URL + "/v0.1/servers")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a key: %d, want 401", resp.StatusCode)
	}
	key := newKey(t, s.DataDir, "--rate-limit", "2/h")
	if n := len(registryServers(t, s.URL, key, "")); n < 50 {
		t.Errorf("with a key: %d servers", n)
	}
	if res := s.search(t, key, "postgres"); res.Total == 0 {
		t.Errorf("reading the registry spent the key's search budget")
	}
	off := startServer(t, "", "--registry-api", "off")
	resp, err = http.Get(off.URL + "/v0.1/servers")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("--registry-api off: %d, want 404", resp.StatusCode)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func diff(got, want map[string]string) []string {
	var out []string
	for k, v := range want {
		if got[k] != v {
			out = append(out, fmt.Sprintf("%s: %q, want %q", k, got[k], v))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, k+": not in the first")
		}
	}
	slices.Sort(out)
	return out[:min(10, len(out))]
}
