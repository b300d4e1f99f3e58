package registryapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/changefeed"
	"github.com/mcpdir/mcpdir/registry"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/sqlite"
)

// registryServer is the registry API on a real store: writes keep versions
// and entries in SQLite, and the index follows the store's change feed as
// a server's does (caught up after each write, so tests need not wait).
type registryServer struct {
	*httptest.Server
	db    *sqlite.DB
	index *search.Index
	api   *registryapi.API
}

type noKeys struct{}

func (noKeys) Refresh(context.Context, []string) error { return nil }

func newRegistry(t *testing.T) *registryServer {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	index := search.New()
	api := &registryapi.API{Dir: index, History: db, MaxAge: time.Minute}
	apply := changefeed.Applier(db, index, changefeed.Followers{Keys: noKeys{}, Versions: api.VersionsChanged})
	var seq int64
	api.Keep = func(ctx context.Context, vs []*mcpdir.ServerVersion) error {
		if _, err := registry.Keep(ctx, db, vs); err != nil {
			return err
		}
		changes, err := db.ChangesSince(ctx, seq, 1000)
		if err != nil || len(changes) == 0 {
			return err
		}
		seq = changes[len(changes)-1].Seq
		return apply(ctx, changes)
	}
	mux := http.NewServeMux()
	api.Routes(mux, nil)
	api.PublishRoutes(mux, func(h http.Handler) http.Handler { return h })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &registryServer{Server: srv, db: db, index: index, api: api}
}

// do sends a write and decodes its answer.
func (s *registryServer) do(t *testing.T, method, path string, body any, want int, into any) {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		r = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, s.URL+path, r)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	if into != nil {
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
}

func published(name, version, description string) map[string]any {
	return map[string]any{
		"$schema": registryapi.SchemaURL, "name": name, "version": version, "description": description,
		"repository": map[string]any{"url": "https://github.com/acme/internal-tools", "source": "github"},
		"packages": []any{map[string]any{"registryType": "npm", "identifier": "@acme/" + strings.Split(name, "/")[1],
			"version": version, "transport": map[string]any{"type": "stdio"},
			"environmentVariables": []any{map[string]any{"name": "ACME_TOKEN", "isSecret": true}}}},
		"_meta": map[string]any{"com.acme/internal": map[string]any{"team": "platform"},
			registryapi.OfficialMeta: map[string]any{"status": "deleted"}},
	}
}

// one is a single version's answer.
type one struct {
	Server map[string]any `json:"server"`
	Meta   struct {
		Official struct {
			Status          string
			StatusMessage   string
			StatusChangedAt *time.Time
			PublishedAt     time.Time
			UpdatedAt       time.Time
			IsLatest        bool
		} `json:"io.modelcontextprotocol.registry/official"`
		Directory struct{ ID string } `json:"io.github.mcpdir/directory"`
	} `json:"_meta"`
}

func versionsOf(t *testing.T, s *registryServer, name, query string) []string {
	t.Helper()
	var l list
	get(t, s.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions"+query, http.StatusOK, &l)
	var out []string
	for _, sv := range l.Servers {
		var om struct {
			Status   string
			IsLatest bool
		}
		json.Unmarshal(sv.Meta[registryapi.OfficialMeta], &om)
		v := sv.Server["version"].(string) + " " + om.Status
		if om.IsLatest {
			v += " latest"
		}
		out = append(out, v)
	}
	return out
}

// TestPublishAndHistory publishes versions of a server through the write
// side and reads them back: every version kept, newest first, the entry
// (search, the list's latest) at the latest one that is not deleted; a
// deletion hides a version but serves it to whoever follows the
// registry; a server whose every version is deleted leaves the directory.
func TestPublishAndHistory(t *testing.T) {
	s := newRegistry(t)
	const name = "com.acme/deploy-bot"
	var got one
	s.do(t, http.MethodPut, "/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.0", published(name, "1.0.0", "Deploys services"), http.StatusOK, &got)
	if got.Server["name"] != name || got.Meta.Official.Status != "active" || !got.Meta.Official.IsLatest || got.Meta.Official.PublishedAt.IsZero() {
		t.Fatalf("published: %+v", got)
	}
	if _, ok := got.Server["_meta"].(map[string]any)["com.acme/internal"]; !ok {
		t.Errorf("the publisher's _meta was dropped: %v", got.Server["_meta"])
	}
	if _, ok := got.Server["_meta"].(map[string]any)[registryapi.OfficialMeta]; ok {
		t.Errorf("a publisher set the registry's own meta: %v", got.Server["_meta"])
	}
	s.do(t, http.MethodPost, "/v0.1/publish", published(name, "1.1.0", "Deploys services, with rollbacks"), http.StatusOK, &got)
	s.do(t, http.MethodPost, "/v0.1/publish", published(name, "1.0.1", "Deploys services (patch)"), http.StatusOK, &got)
	if got.Meta.Official.IsLatest {
		t.Errorf("1.0.1, published after 1.1.0, is not the latest: %+v", got.Meta.Official)
	}
	if v := versionsOf(t, s, name, ""); !slices.Equal(v, []string{"1.1.0 active latest", "1.0.1 active", "1.0.0 active"}) {
		t.Fatalf("versions: %v", v)
	}
	e, ok := s.index.Get(got.Meta.Directory.ID)
	if !ok || e.Version != "1.1.0" || e.Brief != "Deploys services, with rollbacks" {
		t.Fatalf("the entry: %+v %v", e, ok)
	}
	// The list serves every version (newest first within a server);
	// version=latest one per server.
	var l list
	get(t, s.URL+"/v0.1/servers", http.StatusOK, &l)
	if len(l.Servers) != 3 || l.Servers[0].Server["version"] != "1.1.0" {
		t.Fatalf("list: %v", l.Servers)
	}
	get(t, s.URL+"/v0.1/servers?version=latest", http.StatusOK, &l)
	if len(l.Servers) != 1 || l.Servers[0].Server["version"] != "1.1.0" {
		t.Fatalf("version=latest: %v", l.Servers)
	}
	var old one
	get(t, s.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.0", http.StatusOK, &old)
	if old.Server["description"] != "Deploys services" || old.Meta.Official.IsLatest || old.Meta.Directory.ID != e.ID {
		t.Fatalf("an older version: %+v", old)
	}
	// Paging one at a time meets each version once.
	var paged []string
	for _, l := range allPages(t, s.URL+"/v0.1/servers?limit=1") {
		for _, sv := range l.Servers {
			paged = append(paged, sv.Server["version"].(string))
		}
	}
	if !slices.Equal(paged, []string{"1.1.0", "1.0.1", "1.0.0"}) {
		t.Fatalf("paged: %v", paged)
	}

	// Deleting the latest: the entry falls back to the newest left.
	before := time.Now().UTC()
	s.do(t, http.MethodDelete, "/v0.1/servers/"+url.PathEscape(name)+"/versions/1.1.0", nil, http.StatusOK, &got)
	if got.Meta.Official.Status != "deleted" || got.Meta.Official.StatusChangedAt == nil {
		t.Fatalf("deleted: %+v", got.Meta.Official)
	}
	if e, _ := s.index.Get(e.ID); e == nil || e.Version != "1.0.1" {
		t.Fatalf("after deleting 1.1.0 the entry is %+v", e)
	}
	if v := versionsOf(t, s, name, ""); !slices.Equal(v, []string{"1.0.1 active latest", "1.0.0 active"}) {
		t.Fatalf("versions without the deleted: %v", v)
	}
	if v := versionsOf(t, s, name, "?include_deleted=true"); !slices.Equal(v, []string{"1.1.0 deleted", "1.0.1 active latest", "1.0.0 active"}) {
		t.Fatalf("versions with the deleted: %v", v)
	}
	get(t, s.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions/1.1.0", http.StatusNotFound, nil)
	get(t, s.URL+"/v0.1/servers?updated_since="+url.QueryEscape(before.Format(time.RFC3339Nano)), http.StatusOK, &l)
	// The deleted version, and the one that became the latest.
	if len(l.Servers) != 2 || l.Servers[0].Server["version"] != "1.1.0" || l.Servers[1].Server["version"] != "1.0.1" {
		t.Fatalf("updated_since after the deletion: %v", l.Servers)
	}

	// Status: a message, no change refused, every version at once.
	s.do(t, http.MethodPatch, "/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.0/status",
		map[string]any{"status": "deprecated", "statusMessage": "Upgrade to 1.0.1"}, http.StatusOK, &got)
	if got.Meta.Official.Status != "deprecated" || got.Meta.Official.StatusMessage != "Upgrade to 1.0.1" {
		t.Fatalf("deprecated: %+v", got.Meta.Official)
	}
	s.do(t, http.MethodPatch, "/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.0/status",
		map[string]any{"status": "deprecated", "statusMessage": "Upgrade to 1.0.1"}, http.StatusBadRequest, nil)
	var bulk struct {
		UpdatedCount int
		Servers      []one
	}
	s.do(t, http.MethodPatch, "/v0.1/servers/"+url.PathEscape(name)+"/status", map[string]any{"status": "deleted"}, http.StatusOK, &bulk)
	if bulk.UpdatedCount != 2 || len(bulk.Servers) != 2 {
		t.Fatalf("bulk: %+v", bulk)
	}
	// Every version deleted: out of the directory and the list, served
	// to followers.
	if _, ok := s.index.Get(e.ID); ok {
		t.Fatal("a server whose every version is deleted is still in the directory")
	}
	get(t, s.URL+"/v0.1/servers", http.StatusOK, &l)
	if len(l.Servers) != 0 {
		t.Fatalf("the list shows a deleted server: %v", names(l))
	}
	get(t, s.URL+"/v0.1/servers?include_deleted=true&version=latest", http.StatusOK, &l)
	if len(l.Servers) != 1 || l.Servers[0].Server["version"] != "1.1.0" { // every version deleted: the newest is the latest
		t.Fatalf("include_deleted: %v", l.Servers)
	}
	get(t, s.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions", http.StatusNotFound, nil)
	// And back: active again, in the directory again.
	s.do(t, http.MethodPatch, "/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.1/status", map[string]any{"status": "active"}, http.StatusOK, &got)
	if e, ok := s.index.Get(e.ID); !ok || e.Version != "1.0.1" {
		t.Fatalf("restored: %+v", e)
	}
	// Publishing a version again keeps its status and publication time.
	s.do(t, http.MethodPut, "/v0.1/servers/"+url.PathEscape(name)+"/versions/1.0.0", published(name, "1.0.0", "Deploys services, described anew"), http.StatusOK, &got)
	if got.Meta.Official.Status != "deleted" || !got.Meta.Official.PublishedAt.Equal(old.Meta.Official.PublishedAt) || got.Server["description"] != "Deploys services, described anew" {
		t.Fatalf("republished: %+v", got)
	}
}

// TestPublishRefusals checks that a write the registry cannot take gets a
// clear 4xx and changes nothing: the schema's complaint with where in the
// record it is, a name or version other than the path's, a status that is
// none, a version there is not, a body too large or not JSON.
func TestPublishRefusals(t *testing.T) {
	s := newRegistry(t)
	const name = "com.acme/deploy-bot"
	path := "/v0.1/servers/" + url.PathEscape(name) + "/versions/1.0.0"
	badTransport := published(name, "1.0.0", "Deploys")
	pkgs := badTransport["packages"].([]any)
	pkgs = append([]any{map[string]any{"registryType": "npm", "identifier": "@acme/fine", "transport": map[string]any{"type": "stdio"}}}, pkgs...)
	pkgs[1].(map[string]any)["transport"] = map[string]any{"type": "carrier-pigeon"}
	badTransport["packages"] = pkgs
	for _, tc := range []struct {
		what       string
		method     string
		path       string
		body       any
		status     int
		wantPath   string
		wantInText string
	}{
		{"a transport the schema lacks", http.MethodPut, path, badTransport, 400, "/packages/1/transport", "carrier-pigeon"},
		{"a description too long", http.MethodPost, "/v0.1/publish", published(name, "1.0.0", strings.Repeat("d", 101)), 400, "/description", "maxLength"},
		{"no version", http.MethodPost, "/v0.1/publish", map[string]any{"name": name, "description": "d"}, 400, "/", "version"},
		{"a name not the path's", http.MethodPut, path, published("com.acme/other", "1.0.0", "d"), 400, "/name", ""},
		{"a version not the path's", http.MethodPut, path, published(name, "2.0.0", "d"), 400, "/name", ""},
		{"not JSON", http.MethodPost, "/v0.1/publish", "{nope", 400, "", ""},
		{"too large", http.MethodPost, "/v0.1/publish", `{"description":"` + strings.Repeat("x", mcpdir.MaxRecordBytes) + `"}`, 413, "", ""},
		{"no such version", http.MethodDelete, path, nil, 404, "", ""},
		{"no such server", http.MethodPatch, "/v0.1/servers/com.acme%2Fnone/status", map[string]any{"status": "deprecated"}, 404, "", ""},
		{"a status that is none", http.MethodPatch, path + "/status", map[string]any{"status": "gone"}, 400, "/status", ""},
		{"a message too long", http.MethodPatch, path + "/status", map[string]any{"status": "deprecated", "statusMessage": strings.Repeat("m", 501)}, 400, "/statusMessage", ""},
	} {
		t.Run(tc.what, func(t *testing.T) {
			var e struct{ Error, Path string }
			s.do(t, tc.method, tc.path, tc.body, tc.status, &e)
			if e.Error == "" || e.Path != tc.wantPath || !strings.Contains(e.Error, tc.wantInText) {
				t.Errorf("answer: %+v, want the path %q and %q in the text", e, tc.wantPath, tc.wantInText)
			}
		})
	}
	if n, _ := s.db.CountEntries(context.Background()); n != 0 {
		t.Fatalf("refused writes left %d entries", n)
	}
	var l list
	get(t, s.URL+"/v0.1/servers?include_deleted=true", http.StatusOK, &l)
	if len(l.Servers) != 0 {
		t.Fatalf("refused writes left versions: %v", names(l))
	}
	// A registry without a store for writes says so.
	_, ro := directory(t)
	resp, err := http.Post(ro.URL+"/v0.1/publish", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("a read-only registry: %d", resp.StatusCode)
	}
}
