package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// authTransport adds the Authorization header to every request, as MCP
// clients configured with headers do.
type authTransport struct{ authorization string }

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.authorization)
	return http.DefaultTransport.RoundTrip(r)
}

// TestSDKClient runs the SDK's own client, which we did not write, over
// every transport and protocol version the endpoint serves.
func TestSDKClient(t *testing.T) {
	e := newEnv(t, nil)
	client := func(auth string) *http.Client { return &http.Client{Transport: authTransport{auth}} }
	cases := []struct {
		name      string
		transport sdk.Transport
		version   string
	}{
		{"streamable 2026-07-28 bare key", &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client(keyUnlimited), MaxRetries: -1}, "2026-07-28"},
		{"streamable 2025-11-25", &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited), MaxRetries: -1}, "2025-11-25"},
		{"streamable 2025-06-18", &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited), MaxRetries: -1}, "2025-06-18"},
		{"streamable 2025-03-26 bare key", &sdk.StreamableClientTransport{Endpoint: e.url, HTTPClient: client(keyUnlimited), MaxRetries: -1}, "2025-03-26"},
		{"sse 2024-11-05", &sdk.SSEClientTransport{Endpoint: e.url, HTTPClient: client("Bearer " + keyUnlimited)}, "2024-11-05"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil)
			cs, err := c.Connect(ctx, tc.transport, &sdk.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if v := cs.InitializeResult().ProtocolVersion; v != tc.version {
				t.Errorf("negotiated %s, want %s", v, tc.version)
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil || len(list.Tools) != 2 {
				t.Fatalf("list tools: %v %+v", err, list)
			}

			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: toolSearch, Arguments: map[string]any{"keywords": "database", "limit": 5}})
			if err != nil || res.IsError {
				t.Fatalf("search: %v %+v", err, res)
			}
			var out struct {
				Count int
				Data  []leanItem
			}
			if err := json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out); err != nil || out.Count != 2 || out.Data[0].ID == "" {
				t.Fatalf("search text: %v %+v", err, out)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			validate(t, searchOutputSchema, structured)

			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: toolDetail, Arguments: map[string]any{"mcp_id": out.Data[0].ID}})
			if err != nil || res.IsError {
				t.Fatalf("detail: %v %+v", err, res)
			}
			structured, _ = json.Marshal(res.StructuredContent)
			validate(t, detailOutputSchema, structured)

			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: toolDetail, Arguments: map[string]any{"mcp_id": "not-a-uuid"}})
			if err != nil || !res.IsError {
				t.Errorf("bad id: %v %+v", err, res)
			}
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"}); err == nil {
				t.Error("an unknown tool did not fail")
			}
		})
	}

	t.Run("no key", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil)
		if _, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.url, MaxRetries: -1}, nil); err == nil {
			t.Error("connected without a key")
		}
	})
}
