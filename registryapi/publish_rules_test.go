package registryapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/registryapi"
)

// TestPublishReadsServerJSONOnly: a publish is server.json alone. The
// directory's own fields at the top level are refused, naming them; the
// registry's and the directory's _meta are dropped; a _meta key that is
// no reverse-DNS namespace is refused.
func TestPublishReadsServerJSONOnly(t *testing.T) {
	s := newRegistry(t)
	const name = "com.acme/claims"
	for _, field := range []string{"is_official", "is_verified", "popularity", "author_name", "edited", "source", "id", "key", "tags", "categories", "created_at", "extra", "tools", "website_url", "license", "downloads"} {
		rec := published(name, "1.0.0", "Claims")
		rec[field] = true
		var e struct{ Error, Path string }
		s.do(t, http.MethodPost, "/v0.1/publish", rec, http.StatusBadRequest, &e)
		if e.Path != "/"+field || !strings.Contains(e.Error, field) {
			t.Errorf("%s: %+v", field, e)
		}
	}
	rec := published(name, "1.0.0", "Claims")
	rec["a/b"] = 1
	var e struct{ Error, Path string }
	s.do(t, http.MethodPost, "/v0.1/publish", rec, http.StatusBadRequest, &e)
	if e.Path != "/a~1b" {
		t.Errorf("a/b: %+v", e)
	}
	for _, k := range []string{"foo", "com", ".com/x", "com..acme/x", "com.acme/", "com.acme/a b"} {
		rec := published(name, "1.0.0", "Claims")
		rec["_meta"] = map[string]any{k: map[string]any{}}
		s.do(t, http.MethodPost, "/v0.1/publish", rec, http.StatusBadRequest, &e)
		if !strings.HasPrefix(e.Path, "/_meta/") {
			t.Errorf("_meta %q: %+v", k, e)
		}
	}
	if n, _ := s.db.CountEntries(context.Background()); n != 0 {
		t.Fatalf("refused writes left %d entries", n)
	}
	// The reserved namespaces are dropped; the publisher's kept (the
	// spec's own example has a bare "com.example").
	rec = published(name, "1.0.0", "Claims")
	rec["_meta"] = map[string]any{
		registryapi.OfficialMeta:  map[string]any{"status": "deleted"},
		registryapi.DirectoryMeta: map[string]any{"official": true, "popularity": 1e9},
		"io.github.mcpdir/other":  1, "io.modelcontextprotocol.registry/other": 1,
		"io.modelcontextprotocol.registry/publisher-provided": map[string]any{"tool": "ci"},
		"com.example": map[string]any{"verifiedPublisher": true}, "com.acme/build": "7",
	}
	var got one
	s.do(t, http.MethodPost, "/v0.1/publish", rec, http.StatusOK, &got)
	meta, _ := got.Server["_meta"].(map[string]any)
	if len(meta) != 3 || meta["com.example"] == nil || meta["com.acme/build"] != "7" || meta["io.modelcontextprotocol.registry/publisher-provided"] == nil {
		t.Fatalf("_meta kept: %v", meta)
	}
	if got.Meta.Official.Status != mcpdir.StatusActive {
		t.Fatalf("status %q", got.Meta.Official.Status)
	}
	for _, e := range s.index.Find(mcpdir.Query{Text: "claims"}).Hits {
		if e.Entry.IsOfficial || e.Entry.IsVerified || e.Entry.Popularity != 0 || e.Entry.Edited {
			t.Fatalf("%+v", e.Entry)
		}
	}
	// Nothing pins the entry: the next version is served as itself.
	s.do(t, http.MethodPost, "/v0.1/publish", published(name, "2.0.0", "Claims more"), http.StatusOK, nil)
	get(t, s.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions/2.0.0", http.StatusOK, &got)
	if got.Server["version"] != "2.0.0" || got.Server["description"] != "Claims more" {
		t.Fatalf("2.0.0 answers %v", got.Server)
	}
}

// TestPublishNamesAndVersions: names in server.json's pattern without "."
// or ".." segments; versions one release, without whitespace or a shell's
// characters, not "latest".
func TestPublishNamesAndVersions(t *testing.T) {
	s := newRegistry(t)
	for _, name := range []string{"../..", "./x", "a/..", "a/.", "a..b/x", ".a/x", "a./x"} {
		var e struct{ Error, Path string }
		s.do(t, http.MethodPost, "/v0.1/publish", published(name, "1.0.0", "d"), http.StatusBadRequest, &e)
		if e.Path != "/name" {
			t.Errorf("%q: %+v", name, e)
		}
	}
	for _, v := range []string{"latest", "Latest", "latest ", " ", "\n", "^1.2.3", "~1", ">=1", "1.x", "1.2.*", "1 - 2", "1||2", "$(id)", "`id`", "1;2", "1.0.0\t"} {
		var e struct{ Error, Path string }
		rec := published("com.acme/tool", v, "d")
		rec["packages"].([]any)[0].(map[string]any)["version"] = "1.0.0"
		s.do(t, http.MethodPost, "/v0.1/publish", rec, http.StatusBadRequest, &e)
		if e.Path != "/version" {
			t.Errorf("%q: %+v", v, e)
		}
	}
	if n, _ := s.db.CountEntries(context.Background()); n != 0 {
		t.Fatalf("refused writes left %d entries", n)
	}
}

// TestPublishOneStringPerRelease: "v1.0.0", "01.0.0" and "1.0.0+x" are
// the release "1.0.0": once it is published, they are refused with 409
// naming it; "1.0.0" itself is published again as before.
func TestPublishOneStringPerRelease(t *testing.T) {
	s := newRegistry(t)
	const name = "com.acme/tool"
	s.do(t, http.MethodPost, "/v0.1/publish", published(name, "1.0.0", "First"), http.StatusOK, nil)
	for _, v := range []string{"v1.0.0", "01.0.0", "1.0.0+x", "1.00.0"} {
		var e struct{ Error, Code, Version string }
		s.do(t, http.MethodPut, "/v0.1/servers/"+url.PathEscape(name)+"/versions/"+url.PathEscape(v), published(name, v, "Again"), http.StatusConflict, &e)
		if e.Code != registryapi.CodeVersionTaken || e.Version != "1.0.0" || !strings.Contains(e.Error, "1.0.0") {
			t.Errorf("%q: %+v", v, e)
		}
	}
	var got one
	s.do(t, http.MethodPost, "/v0.1/publish", published(name, "1.0.0", "Second"), http.StatusOK, &got)
	if got.Server["description"] != "Second" {
		t.Fatalf("%v", got.Server)
	}
	if vs := versionsOf(t, s, name, ""); len(vs) != 1 {
		t.Fatalf("%v", vs)
	}
}

// Two publishes of one release under two strings at once: the loser is
// told the release is taken (409 version_taken), never a 500. The race is
// played out in order: the other string is kept just before this publish's
// own Keep.
func TestPublishRaceForARelease(t *testing.T) {
	s := newRegistry(t)
	keep := s.api.Keep
	s.api.Keep = func(ctx context.Context, vs []*mcpdir.ServerVersion) error {
		rival, _ := json.Marshal(published("com.acme/race", "v1.0.0", "The rival"))
		v, err := registry.NewVersion(rival, mcpdir.StatusActive, time.Now(), time.Now())
		if err != nil {
			return err
		}
		if err := keep(ctx, []*mcpdir.ServerVersion{v}); err != nil {
			return err
		}
		return keep(ctx, vs)
	}
	var e struct{ Code, Version string }
	s.do(t, http.MethodPost, "/v0.1/publish", published("com.acme/race", "1.0.0", "Mine"), http.StatusConflict, &e)
	if e.Code != registryapi.CodeVersionTaken || e.Version != "v1.0.0" {
		t.Fatalf("%+v", e)
	}
}
