package wire

import (
	"encoding/json"

	"github.com/mcpdir/mcpdir"
)

// ToolItem is one element of a tool search's data, over REST and MCP
// alike: the tool, with its input schema, and its server.
type ToolItem struct {
	ServerID    string          `json:"server_id"`
	ServerName  string          `json:"server_name"`
	ServerTitle string          `json:"server_title,omitempty"` // where the server's record has one
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Fingerprint string          `json:"fingerprint"`
	// LiveStatus is the server's latest live check's status; absent if
	// never checked (the tool then comes from the server's record).
	LiveStatus string `json:"live_status,omitempty"`
	// Warnings counts the warnings a scan of this tool's texts raised
	// (its server's detail lists them); absent when none.
	Warnings int     `json:"warnings,omitempty"`
	Score    float64 `json:"score"`
}

// NewToolItem is the view of a tool hit.
func NewToolItem(h mcpdir.ToolHit) ToolItem {
	it := ToolItem{ServerID: h.Server.ID, ServerName: h.Server.Name, ServerTitle: h.Server.Title, Name: h.Tool.Name, Title: h.Tool.Title,
		Description: h.Tool.Description, InputSchema: h.Tool.InputSchema, Fingerprint: h.Tool.FingerprintOrNew(),
		Score: RoundScore(h.Score)}
	if c := h.Server.CheckedLive(); c != nil {
		it.LiveStatus = c.Status
	}
	for _, w := range h.Server.ToolWarnings {
		if w.Tool == h.Tool.Name {
			it.Warnings++
		}
	}
	return it
}
