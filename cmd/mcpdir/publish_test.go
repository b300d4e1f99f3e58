package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/storetest"
)

// registryVersion GETs one version from a registry API: the status, and
// the version and description served.
func registryVersion(t *testing.T, base, name, version string) (int, string, string) {
	t.Helper()
	resp, err := http.Get(base + "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var one struct {
		Server struct{ Version, Description string } `json:"server"`
	}
	json.NewDecoder(resp.Body).Decode(&one)
	return resp.StatusCode, one.Server.Version, one.Server.Description
}

// registrySearch is what a registry API's search finds: name@version.
func registrySearch(t *testing.T, base, text string) []string {
	t.Helper()
	resp, err := http.Get(base + "/v0.1/servers?search=" + url.QueryEscape(text))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l struct {
		Servers []struct {
			Server struct{ Name, Version string } `json:"server"`
		} `json:"servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("search %q: %d %v", text, resp.StatusCode, err)
	}
	var out []string
	for _, s := range l.Servers {
		out = append(out, s.Server.Name+"@"+s.Server.Version)
	}
	return out
}

// TestPublishReadYourWrites: on replicas sharing PostgreSQL, a write is
// served by the replica that answered it as soon as the answer is out (a
// GET and a search right after, without waiting), and by the other within
// 2 s: publishing a new server, a new version of it, a deletion and a
// status change, 20 times over.
func TestPublishReadYourWrites(t *testing.T) {
	db := storetest.PostgresURL(t)
	a := startServer(t, "", "--database-url", db, "--no-starter", "--registry-rate-limit", "0")
	b := startServer(t, "", "--database-url", db, "--no-starter", "--registry-rate-limit", "0")
	admin := newKey(t, t.TempDir(), "--database-url", db, "--scope", "admin", "--rate-limit", "unlimited")
	write := func(method, path string, body any) {
		t.Helper()
		if code := publish(t, method, a.URL+path, admin, body); code != http.StatusOK {
			t.Fatalf("%s %s: %d", method, path, code)
		}
	}
	var slowest time.Duration
	seen := func(what string, ok func(base string) bool) {
		t.Helper()
		if !ok(a.URL) {
			t.Fatalf("%s: not served by the replica that answered the write", what)
		}
		start := time.Now()
		waitFor(t, 2*time.Second, what+" on the other replica", func() bool { return ok(b.URL) })
		slowest = max(slowest, time.Since(start))
	}
	for i := range 20 {
		name := "com.acme/kestrel-" + string(rune('a'+i))
		at := "/v0.1/servers/" + url.PathEscape(name) + "/versions/"
		for _, v := range []string{"1.0.0", "1.1.0"} {
			rec := serverJSON(name, v)
			rec["description"] = "Kestrel deploys " + v
			write(http.MethodPut, at+v, rec)
			seen(name+" "+v, func(base string) bool {
				code, got, desc := registryVersion(t, base, name, v)
				lcode, latest, _ := registryVersion(t, base, name, "latest")
				found := false
				for _, s := range registrySearch(t, base, "kestrel") {
					found = found || s == name+"@"+v
				}
				return code == http.StatusOK && got == v && desc == "Kestrel deploys "+v && lcode == http.StatusOK && latest == v && found
			})
		}
		write(http.MethodDelete, at+"1.1.0", nil)
		seen(name+" 1.1.0 deleted", func(base string) bool {
			code, _, _ := registryVersion(t, base, name, "1.1.0")
			_, latest, _ := registryVersion(t, base, name, "latest")
			return code == http.StatusNotFound && latest == "1.0.0"
		})
		write(http.MethodPatch, at+"1.0.0/status", map[string]string{"status": "deleted"})
		seen(name+" gone", func(base string) bool {
			code, _, _ := registryVersion(t, base, name, "1.0.0")
			for _, s := range registrySearch(t, base, "kestrel") {
				if strings.HasPrefix(s, name+"@") {
					return false
				}
			}
			return code == http.StatusNotFound
		})
	}
	t.Logf("the other replica served each write within %v", slowest.Round(time.Millisecond))
}

// TestPublishReadsServerJSONOnly: through the real server, a publish with
// the directory's own fields is refused naming them, and nothing pins
// the entry: after 2.0.0, 2.0.0 answers 2.0.0.
func TestPublishReadsServerJSONOnly(t *testing.T) {
	s := startServer(t, "", "--no-starter", "--registry-rate-limit", "0")
	admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "unlimited")
	const name = "com.acme/pinned"
	for _, field := range []string{"is_official", "is_verified", "popularity", "author_name", "edited", "source", "id", "tags"} {
		rec := serverJSON(name, "1.0.0")
		rec[field] = true
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/v0.1/publish", strings.NewReader(string(mustJSON(t, rec))))
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct{ Error, Path string }
		json.Unmarshal(body, &e)
		if resp.StatusCode != http.StatusBadRequest || e.Path != "/"+field {
			t.Errorf("%s: %d %s", field, resp.StatusCode, body)
		}
	}
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if code := publish(t, http.MethodPost, s.URL+"/v0.1/publish", admin, serverJSON(name, v)); code != http.StatusOK {
			t.Fatalf("publishing %s: %d", v, code)
		}
	}
	if code := publish(t, http.MethodPost, s.URL+"/v0.1/publish", admin, serverJSON(name, "v2.0.0")); code != http.StatusConflict {
		t.Fatalf("publishing v2.0.0 after 2.0.0: %d, want 409", code)
	}
	if code, got, _ := registryVersion(t, s.URL, name, "2.0.0"); code != http.StatusOK || got != "2.0.0" {
		t.Fatalf("2.0.0 answers %d %q", code, got)
	}
	if code, _, _ := registryVersion(t, s.URL, "../..", "1.0.0"); code != http.StatusNotFound {
		t.Fatalf("../..: %d", code)
	}
}
