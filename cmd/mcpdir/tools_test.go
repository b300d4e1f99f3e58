package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolSearch finds a tool across servers through the real server, by
// REST and by MCP's search_tools (through the SDK's client), with its input
// schema and its server; and refuses bad input the way server search does.
func TestToolSearch(t *testing.T) {
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	cli(t, s.DataDir, "import", writeLines(t,
		`{"name": "geo-tools", "brief": "Maps and places", "website_url": "https://example.com/geo-tools", "tools": [`+
			`{"name": "geocode", "title": "Geocode an address", "description": "Turn a street address into latitude and longitude", "inputSchema": {"type": "object", "properties": {"address": {"type": "string"}}, "required": ["address"]}},`+
			`{"name": "route", "description": "Driving directions between two places"}]}`))
	type item struct {
		ServerID    string          `json:"server_id"`
		ServerName  string          `json:"server_name"`
		ServerTitle string          `json:"server_title"`
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
		Fingerprint string          `json:"fingerprint"`
	}
	var got struct {
		Data  []item
		Count int
	}
	waitFor(t, 5*time.Second, "the imported tools", func() bool {
		resp := get(t, s.URL+"/api/open/v1/tools/search?keywords="+urlQueryEscape("something that can geocode an address")+"&limit=5", "Bearer "+key)
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			t.Fatalf("tools/search: %d %s", resp.StatusCode, body)
		}
		got.Data = nil // a decode into earlier items would keep fields this answer omits
		json.NewDecoder(resp.Body).Decode(&got)
		for _, h := range got.Data {
			if h.ServerName == "geo-tools" && h.Name == "geocode" {
				return true
			}
		}
		return false
	})
	// The geocoding tools of two servers: the starter's Google Maps server
	// and the import's.
	var h item
	for _, d := range got.Data {
		if d.ServerName == "geo-tools" {
			h = d
			break
		}
	}
	if !strings.Contains(got.Data[0].Name, "geocode") {
		t.Errorf("the best hit: %+v", got.Data[0])
	}
	if h.ServerName != "geo-tools" || h.ServerTitle != "" || h.ServerID != mcpdirEntryID("https://example.com/geo-tools") ||
		!strings.Contains(string(h.InputSchema), `"required":["address"]`) || len(h.Fingerprint) != 64 {
		t.Fatalf("the hit: %+v", h)
	}
	// A server with a title is named by it too.
	for _, d := range got.Data {
		if d.Name == "maps_geocode" && d.ServerTitle == "" {
			t.Errorf("the starter's maps server has no title: %+v", d)
		}
	}
	for _, q := range []string{"", "?keywords=", "?keywords=geocode&limit=0", "?keywords=geocode&limit=abc"} {
		resp := get(t, s.URL+"/api/open/v1/tools/search"+q, "Bearer "+key)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("tools/search%s: %d, want 400", q, resp.StatusCode)
		}
	}

	cs := connectMCP(t, s, "Bearer "+key)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range list.Tools {
		found = found || tool.Name == "search_tools" && tool.OutputSchema != nil
	}
	if !found {
		t.Fatal("tools/list has no search_tools")
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "search_tools", Arguments: map[string]any{"keywords": "run a read-only SQL query", "limit": 3}})
	if err != nil || res.IsError {
		t.Fatalf("search_tools: %v %+v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Success bool
		Data    []item
	}
	json.Unmarshal(raw, &out)
	if !out.Success || len(out.Data) == 0 || !strings.Contains(out.Data[0].ServerName, "postgres") || out.Data[0].ServerTitle == "" {
		t.Fatalf("search_tools: %s", raw)
	}
}
