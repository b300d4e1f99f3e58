package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/toolsearch"
	"github.com/mcpdir/mcpdir/wire"
)

// TestSearchToolsEveryEra calls search_tools over every transport and
// protocol version the endpoint serves, through the SDK's own client, and
// holds each answer, a refusal's too, to the tool's output schema.
func TestSearchToolsEveryEra(t *testing.T) {
	geo := &mcpdir.Entry{Name: "geo-tools", Brief: "Maps", WebsiteURL: "https://example.com/geo", Tools: mcpdir.CleanTools([]mcpdir.Tool{
		{Name: "geocode", Description: "Turn a street address into coordinates", InputSchema: json.RawMessage(`{"type":"object","properties":{"address":{"type":"string"}}}`)}})}
	geo.ID = mcpdir.EntryID(geo.NaturalKey())
	tools := toolsearch.New(search.New())
	tools.Upsert(geo)
	e := newEnv(t, func(c *Config) { c.Tools = tools })
	client := func(auth string) *http.Client { return &http.Client{Transport: authTransport{auth}} }
	for _, tc := range []struct {
		transport sdk.Transport
		version   string
	}{
		{&sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited), MaxRetries: -1}, "2026-07-28"},
		{&sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited), MaxRetries: -1}, "2025-06-18"},
		{&sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited), MaxRetries: -1}, "2025-03-26"},
		{&sdk.SSEClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited)}, "2024-11-05"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil).Connect(ctx, tc.transport, &sdk.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			list, err := cs.ListTools(ctx, nil)
			if err != nil || len(list.Tools) != 3 {
				t.Fatalf("list tools: %v %d", err, len(list.Tools))
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolTools, Arguments: map[string]any{"keywords": "geocode an address"}})
			if err != nil || res.IsError {
				t.Fatalf("search_tools: %v %+v", err, res)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			validate(t, toolsOutputSchema, structured)
			var out struct {
				Data []wire.ToolItem
			}
			json.Unmarshal(structured, &out)
			if len(out.Data) != 1 || out.Data[0].ServerID != geo.ID || out.Data[0].Name != "geocode" || len(out.Data[0].InputSchema) == 0 {
				t.Fatalf("search_tools: %s", structured)
			}
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: toolTools, Arguments: map[string]any{"limit": 3}})
			if err != nil || !res.IsError {
				t.Fatalf("no keywords: %v %+v", err, res)
			}
			structured, _ = json.Marshal(res.StructuredContent)
			validate(t, toolsOutputSchema, structured)
		})
	}
}
