package mcp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
)

// validate checks a structured result against an output schema with the
// validator the SDK uses.
func validate(t *testing.T, schema string, value json.RawMessage) {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(v); err != nil {
		t.Errorf("structuredContent does not match the output schema: %v\n%s", err, value)
	}
}

func TestToolsList(t *testing.T) {
	e := newEnv(t, nil)
	r := readRPC(t, e.post(jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.StatusOK)
	var list struct {
		Tools []struct {
			Name, Title, Description string
			InputSchema              map[string]any
			OutputSchema             map[string]any
			Annotations              map[string]any
		}
	}
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{toolSearch: {"keywords"}, toolDetail: {"mcp_id"}}
	for _, tool := range list.Tools {
		req, ok := names[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		delete(names, tool.Name)
		if tool.Title == "" || len(tool.Description) < 100 {
			t.Errorf("%s: title %q, description %q", tool.Name, tool.Title, tool.Description)
		}
		if tool.InputSchema["type"] != "object" || tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: schemas %v %v", tool.Name, tool.InputSchema, tool.OutputSchema)
		}
		if got, _ := json.Marshal(tool.InputSchema["required"]); string(got) != `["`+req[0]+`"]` {
			t.Errorf("%s: required %s", tool.Name, got)
		}
		a := tool.Annotations
		if a["readOnlyHint"] != true || a["destructiveHint"] != false || a["idempotentHint"] != true || a["openWorldHint"] != false {
			t.Errorf("%s: annotations %v", tool.Name, a)
		}
	}
	if len(names) > 0 {
		t.Errorf("missing tools %v", names)
	}
}

func TestSearchTool(t *testing.T) {
	e := newEnv(t, nil)
	call := func(args string) (toolResult, map[string]any) {
		t.Helper()
		res, text := decodeToolResult(t, readRPC(t, e.post(jsonHeaders(keyUnlimited, nil), toolCall(1, toolSearch, args)), http.StatusOK))
		validate(t, searchOutputSchema, res.StructuredContent)
		return res, text
	}
	errCode := func(text map[string]any) string {
		m, _ := text["error"].(map[string]any)
		c, _ := m["code"].(string)
		return c
	}

	res, text := call(`{"keywords":"postgres"}`)
	if res.IsError || text["success"] != true || text["count"] != 1.0 || text["total"] != 1.0 || text["keywords"] != "postgres" || text["limit"] != 50.0 {
		t.Fatalf("search: %v", text)
	}
	// Filters: applied (the fixture's entries are all stdio), checked under
	// REST's rule before any budget is spent.
	if _, text := call(`{"keywords":"postgres","transport":"sse"}`); text["total"] != 0.0 {
		t.Errorf("transport filter: %v", text)
	}
	if _, text := call(`{"keywords":"postgres","transport":"stdio","registry":"npm","official":false,"tags":["database"]}`); text["total"] != 1.0 {
		t.Errorf("filters: %v", text)
	}
	// Empty strings, as models send for optional arguments, filter nothing.
	if _, text := call(`{"keywords":"postgres","transport":"","registry":"","tags":[]}`); text["total"] != 1.0 {
		t.Errorf("empty filters: %v", text)
	}
	before := e.guard.spent()
	for _, bad := range []string{`{"keywords":"x","transport":"pigeon"}`, `{"keywords":"x","official":"yes"}`, `{"keywords":"x","tags":[1]}`, `{"keywords":"x","tags":["` + strings.Repeat("t", 65) + `"]}`} {
		if res, text := call(bad); !res.IsError || errCode(text) != "invalid_request" {
			t.Errorf("%s: %v", bad, text)
		}
	}
	if e.guard.spent() != before {
		t.Error("a call refused for its filter spent budget")
	}
	item := text["data"].([]any)[0].(map[string]any)
	for _, f := range []string{"id", "name", "brief", "website_url", "tags", "transports", "score"} {
		if _, ok := item[f]; !ok {
			t.Errorf("item lacks %s: %v", f, item)
		}
	}
	if item["id"] != e.index.entries[0].ID {
		t.Errorf("item id %v", item["id"])
	}
	// The text a model reads names the server by its title too.
	res, _ = call(`{"keywords":"postgres"}`)
	var lean struct{ Data []map[string]any }
	if err := json.Unmarshal([]byte(res.Content[0].Text), &lean); err != nil || len(lean.Data) != 1 ||
		lean.Data[0]["title"] != "PostgreSQL" || lean.Data[0]["name"] != "postgres" {
		t.Errorf("lean items %v (%v)", lean.Data, err)
	}

	for _, tc := range []struct {
		args   string
		count  float64
		limit  float64
		notice string
	}{
		{`{"keywords":"filler"}`, 50, 50, ""},
		{`{"keywords":"filler","limit":null}`, 50, 50, ""},
		{`{"keywords":"filler","limit":10.0}`, 10, 10, ""},
		{`{"keywords":"filler","limit":7}`, 7, 7, ""},
		{`{"keywords":"filler","limit":0}`, 1, 1, "below the minimum"},
		{`{"keywords":"filler","limit":-3}`, 1, 1, "below the minimum"},
		{`{"keywords":"filler","limit":500}`, 100, 100, "above the maximum"},
		{`{"keywords":["filler","server"]}`, 50, 50, ""},
		{`{"keywords":"zzzz-nothing"}`, 0, 50, "No MCP server matched"},
	} {
		_, text := call(tc.args)
		notice, _ := text["notice"].(string)
		if text["count"] != tc.count || text["limit"] != tc.limit || !strings.Contains(notice, tc.notice) || (tc.notice == "") != (notice == "") {
			t.Errorf("%s: count %v limit %v notice %q", tc.args, text["count"], text["limit"], notice)
		}
		if tc.count == 50 && text["total"] != 120.0 {
			t.Errorf("%s: total %v", tc.args, text["total"])
		}
	}

	for _, tc := range []struct{ args, code string }{
		{`{}`, "missing_keywords"},
		{`{"keywords":null}`, "missing_keywords"},
		{`{"keywords":"   "}`, "missing_keywords"},
		{`{"keywords":42}`, "invalid_keywords"},
		{`{"keywords":"` + strings.Repeat("k", mcpdir.MaxKeywordsBytes+1) + `"}`, "invalid_keywords"},
		{`{"keywords":"sql","limit":2.5}`, "invalid_request"},
		{`{"keywords":"sql","limit":"10"}`, "invalid_request"},
		{`[1,2]`, "invalid_request"},
	} {
		res, text := call(tc.args)
		msg, _ := text["error"].(map[string]any)["message"].(string)
		if !res.IsError || text["success"] != false || errCode(text) != tc.code || msg == "" {
			t.Errorf("%s: %v", tc.args, text)
		}
	}
}

func TestDetailTool(t *testing.T) {
	e := newEnv(t, nil)
	call := func(args string) (toolResult, map[string]any) {
		t.Helper()
		res, text := decodeToolResult(t, readRPC(t, e.post(jsonHeaders(keyUnlimited, nil), toolCall(1, toolDetail, args)), http.StatusOK))
		validate(t, detailOutputSchema, res.StructuredContent)
		return res, text
	}
	pg := e.index.entries[0]
	for _, id := range []string{pg.ID, strings.ToUpper(pg.ID), " " + pg.ID + " "} {
		res, text := call(`{"mcp_id":"` + id + `"}`)
		data, _ := text["data"].(map[string]any)
		if res.IsError || text["success"] != true || data["id"] != pg.ID || data["name"] != "postgres" ||
			data["repository"].(map[string]any)["source"] != "github" || len(data["packages"].([]any)) != 1 {
			t.Errorf("%q: %v", id, text)
		}
	}
	// One-click install links, for the npm package; none for a server
	// with nothing to install. Text and structured content agree.
	res, text := call(`{"mcp_id":"` + pg.ID + `"}`)
	install, _ := text["data"].(map[string]any)["install"].(map[string]any)
	cursor, _ := install["cursor"].(string)
	u, err := url.Parse(cursor)
	if err != nil || u.Scheme != "cursor" || u.Query().Get("name") != "postgres" {
		t.Fatalf("install: %v", install)
	}
	if config, _ := base64.StdEncoding.DecodeString(u.Query().Get("config")); string(config) != `{"command":"npx","args":["-y","--","@example/postgres-mcp@1.2.3"]}` {
		t.Errorf("Cursor's config: %s", config)
	}
	vscode, _ := install["vscode"].(string)
	if raw, ok := strings.CutPrefix(vscode, "vscode:mcp/install?"); !ok {
		t.Errorf("VS Code link %q", vscode)
	} else if config, _ := url.PathUnescape(raw); config != `{"name":"postgres","type":"stdio","command":"npx","args":["-y","--","@example/postgres-mcp@1.2.3"]}` {
		t.Errorf("VS Code's config: %s", config)
	}
	var structured map[string]any
	json.Unmarshal(res.StructuredContent, &structured)
	if got := structured["data"].(map[string]any)["install"]; !reflect.DeepEqual(got, text["data"].(map[string]any)["install"]) {
		t.Errorf("structured install %v, text's %v", got, install)
	}
	if _, text = call(`{"mcp_id":"` + e.index.entries[1].ID + `"}`); text["data"].(map[string]any)["install"] != nil {
		t.Errorf("install links for a server without a package: %v", text["data"])
	}
	for _, tc := range []struct{ args, code, says string }{
		{`{"mcp_id":"postgres"}`, "invalid_request", "not a UUID"},
		{`{"mcp_id":"00000000-0000-4000-8000-000000000000"}`, "not_found", "search again"},
		{`{}`, "invalid_request", "required"},
		{`{"mcp_id":7}`, "invalid_request", "must be a string"},
	} {
		res, text := call(tc.args)
		e, _ := text["error"].(map[string]any)
		if !res.IsError || text["success"] != false || e["code"] != tc.code || !strings.Contains(e["message"].(string), tc.says) {
			t.Errorf("%s: %v", tc.args, text)
		}
	}
}

// Answers kept encoded are what a call would answer: an entry added to
// the index shows in the next search, different arguments are answered
// apart, and a changed entry's detail is its new one.
func TestKeptAnswersFollowTheIndex(t *testing.T) {
	idx := search.New()
	entry := func(name, brief string) *mcpdir.Entry {
		e := &mcpdir.Entry{Name: name, Brief: brief, Transports: []string{mcpdir.TransportStdio}}
		e.ID = mcpdir.EntryID(e.NaturalKey())
		return e
	}
	idx.Upsert(entry("pg-query", "Query Postgres databases"))
	e := newEnv(t, func(c *Config) { c.Index, c.AnswerCacheBytes = idx, 1<<20 })
	names := func(args string) []string {
		t.Helper()
		_, text := decodeToolResult(t, readRPC(t, e.post(jsonHeaders(keyUnlimited, nil), toolCall(1, toolSearch, args)), http.StatusOK))
		var got []string
		for _, item := range text["data"].([]any) {
			got = append(got, item.(map[string]any)["name"].(string))
		}
		return got
	}
	for range 2 {
		if got := names(`{"keywords":"postgres"}`); !slices.Equal(got, []string{"pg-query"}) {
			t.Fatalf("postgres: %v", got)
		}
	}
	if e.h.tools.answers.Len() == 0 {
		t.Fatal("no answer kept")
	}
	idx.Upsert(entry("postgres-admin", "Administer Postgres servers"))
	if got := names(`{"keywords":"postgres"}`); len(got) != 2 {
		t.Errorf("postgres after an entry was added: %v", got)
	}
	if got := names(`{"keywords":"postgres","limit":1}`); len(got) != 1 {
		t.Errorf("postgres, limit 1: %v", got)
	}
	if got := names(`{"keywords":"postgres","transport":"sse"}`); len(got) != 0 {
		t.Errorf("postgres over sse: %v", got)
	}

	pg := entry("pg-query", "Query Postgres databases")
	brief := func() string {
		t.Helper()
		_, text := decodeToolResult(t, readRPC(t, e.post(jsonHeaders(keyUnlimited, nil), toolCall(1, toolDetail, `{"mcp_id":"`+pg.ID+`"}`)), http.StatusOK))
		data, _ := text["data"].(map[string]any)
		b, _ := data["brief"].(string)
		return b
	}
	for range 2 {
		if got := brief(); got != pg.Brief {
			t.Fatalf("detail: brief %q", got)
		}
	}
	pg.Brief = "Query and tune Postgres databases"
	idx.Upsert(pg)
	if got := brief(); got != pg.Brief {
		t.Errorf("detail after the entry changed: brief %q", got)
	}
}
