package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/sqlite"
)

// The OpenAPI document cannot drift from the code: real answers of the
// running server, for every documented path, are validated against the
// document's schemas for their operation and status, and a status the
// document does not list fails.
func TestOpenAPIDescribesTheServer(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	admin := newKey(t, s.DataDir, "--scope", "admin")
	record := `{"name": "openapi-test", "brief": "A test entry", "website_url": "https://example.com/openapi-test"}`
	id := mcpdirEntryID("https://example.com/openapi-test")
	starterID := mcpdirEntryID("https://github.com/modelcontextprotocol/servers-archived/tree/main/src/postgres")
	checkedEntry(t, s)
	// An OAuth grant, whose refresh token the token endpoint's case uses.
	clientID, redirect := register(t, s.URL, "OpenAPI test")
	verifier, challenge := pkce()
	granted := signUp(t, s, "openapi@example.com").authorize(s.URL, clientID, redirect, challenge, "s", "allow")
	_, tok := postForm(t, s.URL+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {granted.Get("code")}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}})
	refresh := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}, "client_id": {clientID}}.Encode()
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	resp := get(t, s.URL+"/api/openapi.json", "")
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components map[string]map[string]json.RawMessage `json:"components"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("/api/openapi.json: %d", resp.StatusCode)
	}
	// The document's schemas, with its references made JSON Schema ones.
	defs := strings.ReplaceAll(string(mustJSON(t, doc.Components["schemas"])), "#/components/schemas/", "#/$defs/")
	schemaFor := func(schema json.RawMessage) *jsonschema.Resolved {
		t.Helper()
		full := `{"$defs": ` + defs + `, "allOf": [` + strings.ReplaceAll(string(schema), "#/components/schemas/", "#/$defs/") + `]}`
		var js jsonschema.Schema
		if err := json.Unmarshal([]byte(full), &js); err != nil {
			t.Fatal(err)
		}
		r, err := js.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// response finds the documented response of an operation and status.
	response := func(path, method string, status int) (content map[string]struct {
		Schema json.RawMessage `json:"schema"`
	}, ok bool) {
		op, found := doc.Paths[path][strings.ToLower(method)]
		if !found {
			return nil, false
		}
		var o struct {
			Responses map[string]json.RawMessage `json:"responses"`
		}
		json.Unmarshal(op, &o)
		r, found := o.Responses[strconv.Itoa(status)]
		if !found {
			return nil, false
		}
		var ref struct {
			Ref     string `json:"$ref"`
			Content map[string]struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"content"`
		}
		json.Unmarshal(r, &ref)
		if name, isRef := strings.CutPrefix(ref.Ref, "#/components/responses/"); isRef {
			json.Unmarshal(doc.Components["responses"][name], &ref)
		}
		return ref.Content, true
	}

	cases := []struct {
		method, path, query, body string
		headers                   []string
		status                    int
	}{
		{"GET", "/api/open/v1/search", "?keywords=github&transport=stdio", "", []string{"Authorization", "Bearer " + key}, 200},
		{"GET", "/api/open/v1/search", "?keywords=github&live=up", "", []string{"Authorization", "Bearer " + key}, 200},
		{"GET", "/api/open/v1/search", "", "", []string{"Authorization", "Bearer " + key}, 400},
		{"GET", "/api/open/v1/search", "?keywords=github&official=maybe", "", []string{"Authorization", "Bearer " + key}, 400},
		{"GET", "/api/open/v1/search", "?keywords=github", "", nil, 401},
		{"GET", "/api/open/v1/tools/search", "?keywords=run+a+read-only+sql+query&limit=5", "", []string{"Authorization", "Bearer " + key}, 200},
		{"GET", "/api/open/v1/tools/search", "?keywords=sql&limit=0", "", []string{"Authorization", "Bearer " + key}, 400},
		{"GET", "/api/open/v1/tools/search", "?keywords=sql&warnings=none", "", []string{"Authorization", "Bearer " + key}, 200},
		{"GET", "/api/open/v1/tools/search", "?keywords=sql&warnings=some", "", []string{"Authorization", "Bearer " + key}, 400},
		{"GET", "/api/open/v1/search", "?keywords=postgres&warnings=none", "", []string{"Authorization", "Bearer " + key}, 200},
		{"GET", "/api/open/v1/tools/search", "?keywords=sql", "", nil, 401},
		{"GET", "/api/open/v1/servers/{id}", starterID, "", []string{"Authorization", "Bearer " + key}, 200},
		{"GET", "/api/open/v1/servers/{id}", "00000000-0000-5000-8000-000000000000", "", []string{"Authorization", "Bearer " + key}, 404},
		{"GET", "/api/open/v1/servers/{id}", "not-an-id", "", []string{"Authorization", "Bearer " + key}, 400},
		{"GET", "/api/open/v1/servers/{id}", starterID, "", nil, 401},
		{"GET", "/api/open/v1/search", "?keywords=" + strings.Repeat("a", 3*mcpdir.MaxKeywordsBytes+1024), "", nil, 414},
		{"POST", "/api/open/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"github"}}}`, []string{"Authorization", "Bearer " + key, "Accept", "application/json"}, 200},
		{"POST", "/api/open/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, []string{"Authorization", key}, 200},
		{"POST", "/api/open/mcp", "", `{"jsonrpc":`, []string{"Authorization", "Bearer " + key}, 400},
		{"POST", "/api/open/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, 401},
		{"POST", "/api/open/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Authorization", "Bearer " + key, "Mcp-Session-Id", "nope"}, 404},
		{"GET", "/api/open/mcp", "", "", []string{"Authorization", "Bearer " + key, "Accept", "application/json"}, 406},
		{"DELETE", "/api/open/mcp", "", "", []string{"Authorization", "Bearer " + key}, 400},
		{"GET", "/healthz", "", "", nil, 200},
		{"GET", "/readyz", "", "", nil, 200},
		{"GET", "/metrics", "", "", nil, 200},
		{"GET", "/metrics", "", "", []string{"X-Forwarded-For", "203.0.113.1"}, 401},
		{"GET", "/api/openapi.json", "", "", nil, 200},
		{"POST", "/api/admin/v1/entries", "", record, []string{"Authorization", "Bearer " + admin}, 201},
		{"POST", "/api/admin/v1/entries", "", record, []string{"Authorization", "Bearer " + admin}, 409},
		{"POST", "/api/admin/v1/entries", "", `{"brief": "no name"}`, []string{"Authorization", "Bearer " + admin}, 400},
		{"POST", "/api/admin/v1/entries", "", record, []string{"Authorization", "Bearer " + key}, 403},
		{"GET", "/api/admin/v1/entries/{id}", id, "", []string{"Authorization", "Bearer " + admin}, 200},
		{"PUT", "/api/admin/v1/entries/{id}", id, record, []string{"Authorization", "Bearer " + admin}, 200},
		{"POST", "/api/admin/v1/entries/{id}/split", id, `{"from": "` + starterID + `"}`, []string{"Authorization", "Bearer " + admin}, 200},
		{"POST", "/api/admin/v1/entries/{id}/split", id, `{"from": 1}`, []string{"Authorization", "Bearer " + admin}, 400},
		{"DELETE", "/api/admin/v1/entries/{id}/split/{other}", id + "|" + starterID, "", []string{"Authorization", "Bearer " + admin}, 200},
		{"DELETE", "/api/admin/v1/entries/{id}/split/{other}", id + "|00000000-0000-5000-8000-000000000000", "", []string{"Authorization", "Bearer " + admin}, 404},
		{"POST", "/api/admin/v1/entries/{id}/join", id, `{"with": "` + starterID + `"}`, []string{"Authorization", "Bearer " + admin}, 200},
		{"POST", "/api/admin/v1/entries/{id}/join", id, `{"with": "x"}`, []string{"Authorization", "Bearer " + admin}, 400},
		{"DELETE", "/api/admin/v1/entries/{id}/join/{other}", id + "|" + starterID, "", []string{"Authorization", "Bearer " + admin}, 200},
		{"DELETE", "/api/admin/v1/entries/{id}/join/{other}", id + "|00000000-0000-5000-8000-000000000000", "", []string{"Authorization", "Bearer " + admin}, 404},
		{"GET", "/api/admin/v1/conflicts", "", "", []string{"Authorization", "Bearer " + admin}, 200},
		{"GET", "/api/admin/v1/conflicts", "", "", []string{"Authorization", "Bearer " + key}, 403},
		{"GET", "/api/admin/v1/audit", "", "", []string{"Authorization", "Bearer " + admin}, 200},
		{"GET", "/api/admin/v1/insights", "?days=1", "", []string{"Authorization", "Bearer " + admin}, 200},
		{"GET", "/api/admin/v1/insights", "?format=csv", "", []string{"Authorization", "Bearer " + admin}, 200},
		{"GET", "/api/admin/v1/insights", "?days=0", "", []string{"Authorization", "Bearer " + admin}, 400},
		{"GET", "/api/admin/v1/insights", "", "", []string{"Authorization", "Bearer " + key}, 403},
		{"GET", "/api/admin/v1/insights", "", "", nil, 401},
		{"POST", "/api/admin/v1/entries/{id}/approve", id, "", []string{"Authorization", "Bearer " + admin}, 200},
		{"POST", "/api/admin/v1/entries/{id}/unapprove", id, "", []string{"Authorization", "Bearer " + admin}, 200},
		{"POST", "/api/admin/v1/entries/{id}/approve", "00000000-0000-5000-8000-000000000000", "", []string{"Authorization", "Bearer " + admin}, 404},
		{"GET", "/api/admin/v1/export", "", "", []string{"Authorization", "Bearer " + admin}, 200},
		{"GET", "/api/admin/v1/export", "", "", nil, 401},
		{"DELETE", "/api/admin/v1/entries/{id}", id, "", []string{"Authorization", "Bearer " + admin}, 204},
		{"DELETE", "/api/admin/v1/entries/{id}", id, "", []string{"Authorization", "Bearer " + admin}, 404},
		{"GET", "/.well-known/oauth-protected-resource/api/open/mcp", "", "", nil, 200},
		{"GET", "/.well-known/oauth-protected-resource", "", "", nil, 200},
		{"GET", "/.well-known/oauth-authorization-server", "", "", nil, 200},
		{"POST", "/oauth/register", "", `{"client_name":"a","redirect_uris":["http://127.0.0.1/cb"]}`, nil, 201},
		{"POST", "/oauth/register", "", `{"redirect_uris":["http://example.com/cb"]}`, nil, 400},
		{"POST", "/oauth/token", "", refresh, form, 200},
		{"POST", "/oauth/token", "", refresh, form, 400},
		{"POST", "/oauth/token", "", "grant_type=refresh_token&refresh_token=x", form, 401},
		{"POST", "/oauth/revoke", "", "token=" + url.QueryEscape(tok["access_token"].(string)), form, 200},
		{"POST", "/oauth/revoke", "", "token_type_hint=refresh_token", form, 400},
		{"GET", "/v0.1/servers", "?limit=5", "", nil, 200},
		{"GET", "/v0.1/servers", "?search=postgres&limit=3", "", nil, 200},
		{"GET", "/v0.1/servers", "?limit=0", "", nil, 400},
		{"GET", "/v0.1/servers/{serverName}/versions", "io.github.modelcontextprotocol%2Fserver-postgres", "", nil, 200},
		{"GET", "/v0.1/servers/{serverName}/versions", "com.example%2Fnone", "", nil, 404},
		{"GET", "/v0.1/servers/{serverName}/versions/{version}", "io.github.modelcontextprotocol%2Fserver-postgres|latest", "", nil, 200},
		{"GET", "/v0.1/servers/{serverName}/versions/{version}", "com.example%2Fnone|latest", "", nil, 404},
		{"POST", "/v0.1/publish", "", `{"name":"com.acme/deploy","version":"1.0.0","description":"Deploys"}`, []string{"Authorization", "Bearer " + admin}, 200},
		{"POST", "/v0.1/publish", "", `{"name":"com.acme/deploy","version":"1.0.0","description":"Deploys"}`, []string{"Authorization", "Bearer " + key}, 403},
		{"POST", "/v0.1/publish", "", `{"name":"com.acme/deploy","version":"1.0.0","description":"Deploys"}`, nil, 401},
		{"POST", "/v0.1/publish", "", `{"name":"com.acme/deploy","version":"1.0.0","description":"` + strings.Repeat("d", 300<<10) + `"}`, []string{"Authorization", "Bearer " + admin}, 413},
		{"PUT", "/v0.1/servers/{serverName}/versions/{version}", "com.acme%2Fdeploy|1.1.0", `{"name":"com.acme/deploy","version":"1.1.0","description":"Deploys"}`, []string{"Authorization", "Bearer " + admin}, 200},
		{"PUT", "/v0.1/servers/{serverName}/versions/{version}", "com.acme%2Fdeploy|1.2.0", `{"name":"com.acme/deploy","version":"1.1.0","description":"Deploys"}`, []string{"Authorization", "Bearer " + admin}, 400},
		{"PATCH", "/v0.1/servers/{serverName}/versions/{version}/status", "com.acme%2Fdeploy|1.0.0", `{"status":"deprecated"}`, []string{"Authorization", "Bearer " + admin}, 200},
		{"PATCH", "/v0.1/servers/{serverName}/versions/{version}/status", "com.acme%2Fdeploy|1.0.0", `{"status":"deprecated"}`, []string{"Authorization", "Bearer " + admin}, 400},
		{"PATCH", "/v0.1/servers/{serverName}/versions/{version}/status", "com.acme%2Fdeploy|9.9.9", `{"status":"deprecated"}`, []string{"Authorization", "Bearer " + admin}, 404},
		{"DELETE", "/v0.1/servers/{serverName}/versions/{version}", "com.acme%2Fdeploy|1.1.0", "", []string{"Authorization", "Bearer " + admin}, 200},
		{"DELETE", "/v0.1/servers/{serverName}/versions/{version}", "com.acme%2Fdeploy|9.9.9", "", []string{"Authorization", "Bearer " + admin}, 404},
		{"PATCH", "/v0.1/servers/{serverName}/status", "com.acme%2Fdeploy", `{"status":"active"}`, []string{"Authorization", "Bearer " + admin}, 200},
		{"PATCH", "/v0.1/servers/{serverName}/status", "com.acme%2Fnone", `{"status":"active"}`, []string{"Authorization", "Bearer " + admin}, 404},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		target := c.path + c.query
		if strings.Contains(c.path, "{") {
			// The query field holds the path's values, in order.
			target = c.path
			for _, v := range strings.Split(c.query, "|") {
				i, j := strings.Index(target, "{"), strings.Index(target, "}")
				target = target[:i] + v + target[j+1:]
			}
		}
		req, _ := http.NewRequest(c.method, s.URL+target, strings.NewReader(c.body))
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		name := c.method + " " + c.path + " → " + strconv.Itoa(resp.StatusCode)
		if resp.StatusCode != c.status {
			t.Errorf("%s, want %d: %.200s", name, c.status, body)
			continue
		}
		covered[c.method+" "+c.path] = true
		content, ok := response(c.path, c.method, resp.StatusCode)
		if !ok {
			t.Errorf("%s: the document does not list this answer", name)
			continue
		}
		if len(content) == 0 && len(body) == 0 {
			continue // documented without a body, and none came
		}
		mediaType, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
		media, ok := content[mediaType]
		if !ok {
			t.Errorf("%s: the document lists no %s content", name, mediaType)
			continue
		}
		if mediaType != "application/json" {
			continue
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Errorf("%s: not JSON: %.200s", name, body)
			continue
		}
		if err := schemaFor(media.Schema).Validate(v); err != nil {
			t.Errorf("%s: the answer does not match the document: %v\n%.300s", name, err, body)
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			if op := strings.ToUpper(method) + " " + path; !covered[op] {
				t.Errorf("no test answer for the documented %s", op)
			}
		}
	}
}

// checkedEntry adds a hosted entry with a live check, so that the
// document's live object is held to a real answer.
func checkedEntry(t *testing.T, s *testServer) {
	t.Helper()
	website := "https://example.com/github-hosted"
	cli(t, s.DataDir, "import", writeLines(t, `{"name": "github-hosted", "brief": "GitHub issues, hosted", "website_url": "`+website+`", "remotes": [{"url": "https://example.com/mcp", "type": "streamable-http"}]}`))
	store, err := sqlite.Open(t.Context(), s.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c := &mcpdir.LiveCheck{URL: "https://example.com/mcp", Status: mcpdir.LiveUp, CheckedAt: time.Now(), Latency: 12 * time.Millisecond,
		ProtocolVersion: "2025-06-18", Tools: []mcpdir.Tool{{Name: "list_issues"}}}
	if err := store.RecordLiveCheck(t.Context(), mcpdirEntryID(website), c); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the checked entry", func() bool { // on its page, so as not to spend the key's budget
		resp := get(t, s.URL+"/servers/"+mcpdirEntryID(website), "")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(body), ">Up</span>")
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mcpdirEntryID(website string) string {
	return mcpdir.EntryID((&mcpdir.Entry{WebsiteURL: website}).NaturalKey())
}
