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

// registryServers pages through a registry API's /v0.1/servers and returns
// each server's name and version, and their official status.
func registryServers(t *testing.T, base, auth string) map[string]string {
	t.Helper()
	out := map[string]string{}
	cursor := ""
	for range 1000 {
		req, _ := http.NewRequest(http.MethodGet, base+"/v0.1/servers?limit=40&cursor="+url.QueryEscape(cursor), nil)
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Servers []struct {
				Server struct{ Name, Version string }     `json:"server"`
				Meta   map[string]struct{ Status string } `json:"_meta"`
			} `json:"servers"`
			Metadata struct{ NextCursor string } `json:"metadata"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("GET %s/v0.1/servers: %d %v", base, resp.StatusCode, err)
		}
		for _, s := range page.Servers {
			if _, dup := out[s.Server.Name]; dup {
				t.Fatalf("%s served twice", s.Server.Name)
			}
			out[s.Server.Name] = s.Server.Version + " " + s.Meta["io.modelcontextprotocol.registry/official"].Status
		}
		if cursor = page.Metadata.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("paging did not end")
	return nil
}

// TestRegistryFederation proves the registry API both ways: one mcpdir
// serves its directory (the starter directory and an import) as a registry,
// and a second follows it with mcpdir sync --from and ends with the same
// servers, versions and status; a later incremental sync (updated_since)
// brings only what changed.
func TestRegistryFederation(t *testing.T) {
	a := startServer(t, "", "--registry-rate-limit", "0") // the test polls
	want := registryServers(t, a.URL, "")
	if len(want) < 50 {
		t.Fatalf("the first registry serves %d servers", len(want))
	}
	b := t.TempDir()
	out := cli(t, b, "sync", "--from", a.URL)
	if !strings.Contains(out, fmt.Sprintf("%d added", len(want))) {
		t.Fatalf("first sync: %s", out)
	}
	sb := startServer(t, b, "--no-starter", "--registry-rate-limit", "0")
	if got := registryServers(t, sb.URL, ""); !mapsEqual(got, want) {
		t.Fatalf("the mirror serves %d servers, the first %d; they differ: %v", len(got), len(want), diff(got, want))
	}

	// A new server in the first: the mirror's next sync asks for what was
	// updated since its last, and brings just that.
	records := filepath.Join(t.TempDir(), "new.jsonl")
	os.WriteFile(records, []byte(`{"name":"@acme/kite","brief":"Fly a kite from an agent","website_url":"https://www.npmjs.com/package/@acme/kite","registry":"npm","version":"0.3.0"}`+"\n"), 0o600)
	cli(t, a.DataDir, "import", records)
	waitFor(t, 5*time.Second, "the import in the first's registry API", func() bool {
		_, ok := registryServers(t, a.URL, "")["com.npmjs/acme.kite"]
		return ok
	})
	out = cli(t, b, "sync", "--from", a.URL)
	if !strings.Contains(out, "1 added, 0 updated, 0 unchanged") {
		t.Errorf("incremental sync: %s", out)
	}
	waitFor(t, 5*time.Second, "the new server in the mirror", func() bool {
		return registryServers(t, sb.URL, "")["com.npmjs/acme.kite"] == "0.3.0 active"
	})

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
	if n := len(registryServers(t, s.URL, key)); n < 50 {
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
