package registryapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

// spec is the registry's own specification: server.schema.json and the
// response schemas of openapi.yaml, from ../shared/spec/registry.
type spec struct {
	server    *jsonschema.Resolved            // server.schema.json
	responses map[string]*jsonschema.Resolved // openapi.yaml's components by name, and "NotFound"
}

func loadSpec(t *testing.T) *spec {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "spec", "registry")
	if d := os.Getenv("MCPDIR_SHARED_SPEC"); d != "" {
		dir = filepath.Join(d, "registry")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "server.schema.json"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the registry's specification is missing: %v", err)
		}
		t.Skipf("../shared/spec/registry not found (%v): validation against the registry's specification skipped", err)
	}
	sp := &spec{server: resolve(t, raw), responses: map[string]*jsonschema.Resolved{}}
	data, err := os.ReadFile(filepath.Join(dir, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"]
	// The OpenAPI document's schemas as one JSON Schema (its dialect,
	// 2020-12), their references made local.
	defs, err := json.Marshal(schemas)
	if err != nil {
		t.Fatal(err)
	}
	defs = []byte(strings.ReplaceAll(string(defs), "#/components/schemas/", "#/$defs/"))
	for _, name := range []string{"ServerList", "ServerResponse", "AllVersionsStatusResponse"} {
		sp.responses[name] = resolve(t, fmt.Appendf(nil,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":%s,"$ref":"#/$defs/%s"}`, defs, name))
	}
	// The 404 of the version endpoints, as the document writes it.
	notFound := doc["paths"].(map[string]any)["/v0.1/servers/{serverName}/versions/{version}"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["404"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	nf, _ := json.Marshal(notFound)
	sp.responses["NotFound"] = resolve(t, fmt.Appendf(nil, `{"$schema":"https://json-schema.org/draft/2020-12/schema","allOf":[%s],"required":["error"]}`, nf))
	return sp
}

func resolve(t *testing.T, raw []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// check validates an answer's body against a response schema, and every
// server record in it against server.schema.json.
func (sp *spec) check(t *testing.T, what, schema string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := sp.responses[schema].Validate(v); err != nil {
		t.Errorf("%s: not a %s: %v\n%.500s", what, schema, err, body)
	}
	var servers []any
	switch m := v.(type) {
	case map[string]any:
		if list, ok := m["servers"].([]any); ok {
			servers = list
		} else if m["server"] != nil {
			servers = []any{m}
		}
	}
	for _, s := range servers {
		if err := sp.server.Validate(s.(map[string]any)["server"]); err != nil {
			rec, _ := json.Marshal(s)
			t.Errorf("%s: a record breaks server.schema.json: %v\n%.1000s", what, err, rec)
		}
	}
}

func body(t *testing.T, u string, want int) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d: %s", u, resp.StatusCode, want, b)
	}
	return b
}

// TestAnswersFollowTheSpec serves the packages corpus, the registry's
// samples and the starter-like records, and validates every answer of the
// read API against the registry's OpenAPI document and every record against
// server.schema.json: whole pages of the list, searches, each version
// endpoint, and the errors.
func TestAnswersFollowTheSpec(t *testing.T) {
	sp := loadSpec(t)
	entries := []*mcpdir.Entry{
		entry("@acme/tool", "A tool", nil),
		entry("weird name!! with spaces", strings.Repeat("A very long brief. ", 20), func(e *mcpdir.Entry) { e.Version = "^1.2" }),
		entry("hosted", "Hosted", func(e *mcpdir.Entry) {
			e.Packages, e.WebsiteURL = nil, "not a url"
			e.Remotes = []mcpdir.Remote{{URL: "https://x.example.com/mcp", Transport: mcpdir.TransportSSE}, {URL: "ftp://bad", Transport: "sse"}}
		}),
	}
	dir := filepath.Join("..", "..", "shared", "data")
	if d := os.Getenv("MCPDIR_SHARED_DATA"); d != "" {
		dir = d
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "packages-corpus.jsonl")); err == nil {
		for i, line := range strings.Split(string(raw), "\n") {
			if e, err := importer.ParseRecord([]byte(line)); err == nil && i < 3000 {
				e.ID = mcpdir.EntryID(e.NaturalKey())
				entries = append(entries, e)
			}
		}
		for _, f := range []string{"registry-servers-sample.json"} {
			raw, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			var recs []json.RawMessage
			json.Unmarshal(raw, &recs)
			for _, rec := range recs {
				e, err := importer.ParseRecord(rec)
				if err != nil {
					continue
				}
				e.Source = mcpdir.SourceRegistry
				e.Extra = mcpdir.NewExtra(map[string]json.RawMessage{"server": rec})
				e.ID = mcpdir.EntryID(e.NaturalKey())
				entries = append(entries, e)
			}
		}
	}
	_, srv := directory(t, entries...)
	cursor, pages := "", 0
	for {
		b := body(t, srv.URL+"/v0.1/servers?limit=100&cursor="+url.QueryEscape(cursor), http.StatusOK)
		sp.check(t, "list page", "ServerList", b)
		var l list
		json.Unmarshal(b, &l)
		if pages++; pages == 1 {
			for _, s := range l.Servers[:min(20, len(l.Servers))] {
				name := url.PathEscape(s.Server["name"].(string))
				sp.check(t, "versions", "ServerList", body(t, srv.URL+"/v0.1/servers/"+name+"/versions", http.StatusOK))
				sp.check(t, "latest", "ServerResponse", body(t, srv.URL+"/v0.1/servers/"+name+"/versions/latest", http.StatusOK))
				v := url.PathEscape(s.Server["version"].(string))
				sp.check(t, "version", "ServerResponse", body(t, srv.URL+"/v0.1/servers/"+name+"/versions/"+v, http.StatusOK))
			}
		}
		if cursor = l.Metadata.NextCursor; cursor == "" {
			break
		}
	}
	for _, q := range []string{"postgres", "weather forecast", "find a tool to convert pdf to markdown"} {
		sp.check(t, "search "+q, "ServerList", body(t, srv.URL+"/v0.1/servers?limit=50&search="+url.QueryEscape(q), http.StatusOK))
	}
	sp.check(t, "404", "NotFound", body(t, srv.URL+"/v0.1/servers/com.example%2Fnone/versions/latest", http.StatusNotFound))
	sp.check(t, "404", "NotFound", body(t, srv.URL+"/v0.1/servers/com.example%2Fnone/versions", http.StatusNotFound))
}

// TestWritesFollowTheSpec publishes the registry's own sample records
// through the write side (what it accepts, the registry accepted), then
// validates every answer: the writes', the history's in the list and the
// versions endpoint, the bulk status answer, and the refusals. The
// schema the write side checks against is the registry's, byte for byte.
func TestWritesFollowTheSpec(t *testing.T) {
	sp := loadSpec(t)
	dir := filepath.Join("..", "..", "shared", "spec", "registry")
	if d := os.Getenv("MCPDIR_SHARED_SPEC"); d != "" {
		dir = filepath.Join(d, "registry")
	}
	shared, err := os.ReadFile(filepath.Join(dir, "server.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := os.ReadFile(filepath.Join("..", "registry", "server.schema.json"))
	if err != nil || string(embedded) != string(shared) {
		t.Fatalf("the embedded server.schema.json is not the registry's (%v)", err)
	}
	data := filepath.Join("..", "..", "shared", "data")
	if d := os.Getenv("MCPDIR_SHARED_DATA"); d != "" {
		data = d
	}
	raw, err := os.ReadFile(filepath.Join(data, "registry-servers-sample.json"))
	if err != nil {
		t.Skipf("registry-servers-sample.json not found (%v): this test needs the shared data set", err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	s := newRegistry(t)
	write := func(method, path string, body any, want int) []byte {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(string(b)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, out)
		}
		return out
	}
	names := map[string]bool{}
	var last map[string]any
	for _, rec := range recs {
		name, version := rec["name"].(string), rec["version"].(string)
		at := "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
		if sp.server.Validate(rec) != nil {
			// The sample's spam-like record breaks the schema: refused.
			sp.check(t, "a refusal", "NotFound", write(http.MethodPut, at, rec, http.StatusBadRequest))
			continue
		}
		names[name], last = true, rec
		sp.check(t, "PUT "+name, "ServerResponse", write(http.MethodPut, at, rec, http.StatusOK))
	}
	if len(names) < 2 {
		t.Fatalf("%d valid servers in the sample", len(names))
	}
	path := "/v0.1/servers/" + url.PathEscape(last["name"].(string))
	sp.check(t, "DELETE", "ServerResponse", write(http.MethodDelete, path+"/versions/"+url.PathEscape(last["version"].(string)), nil, http.StatusOK))
	sp.check(t, "PATCH status", "AllVersionsStatusResponse", write(http.MethodPatch, path+"/status", map[string]any{"status": "deprecated", "statusMessage": "Moved"}, http.StatusOK))
	sp.check(t, "a refusal", "NotFound", write(http.MethodPatch, path+"/status", map[string]any{"status": "retired"}, http.StatusBadRequest))
	sp.check(t, "a refusal", "NotFound", write(http.MethodPost, "/v0.1/publish", map[string]any{"name": "x"}, http.StatusBadRequest))
	for _, q := range []string{"", "?include_deleted=true", "?version=latest", "?updated_since=2020-01-01T00:00:00Z"} {
		b := body(t, s.URL+"/v0.1/servers"+q, http.StatusOK)
		sp.check(t, "list"+q, "ServerList", b)
		var l list
		json.Unmarshal(b, &l)
		if len(l.Servers) < len(names) {
			t.Errorf("list%s: %d versions of %d servers", q, len(l.Servers), len(names))
		}
	}
	for name := range names {
		sp.check(t, "versions", "ServerList", body(t, s.URL+"/v0.1/servers/"+url.PathEscape(name)+"/versions?include_deleted=true", http.StatusOK))
	}
}
