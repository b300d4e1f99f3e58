package mcpdir

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Live check statuses: what connecting to an entry's remote endpoint as an
// MCP client found.
const (
	LiveUp           = "up"            // initialize and tools/list answered
	LiveAuthRequired = "auth_required" // the server answered 401 or 403
	LiveDown         = "down"          // no connection, timeout, 5xx, not MCP, too many redirects, refused address
)

// LiveStatuses are the statuses, in the order summaries name them.
var LiveStatuses = []string{LiveUp, LiveAuthRequired, LiveDown}

// Bounds on what a live check keeps of a server's answer: nothing of it is
// trusted.
const (
	MaxLiveTools        = 400
	maxLiveToolName     = 128
	maxLiveToolDesc     = 1000
	maxLiveProtoVersion = 32
)

// LiveCheck is the latest live check of an entry's remote endpoint.
type LiveCheck struct {
	URL             string // the endpoint checked
	Status          string // LiveUp, LiveAuthRequired or LiveDown
	CheckedAt       time.Time
	Latency         time.Duration
	ProtocolVersion string // what the server agreed to, when up
	Tools           []Tool // what tools/list answered, when up
}

// LiveStore keeps the latest live check of each entry. Recording one is a
// change of the entry in the change feed, so every server sees it.
type LiveStore interface {
	// RecordLiveCheck stores c as entry id's latest check; ErrNotFound if
	// the entry is gone.
	RecordLiveCheck(ctx context.Context, id string, c *LiveCheck) error
}

// LiveRemote returns the endpoint a live check connects to: the entry's first
// streamable-http remote, else its first sse one; ok is false when it has
// neither.
func (e *Entry) LiveRemote() (r Remote, ok bool) {
	for _, t := range []string{TransportStreamableHTTP, TransportSSE} {
		for _, r := range e.Remotes {
			if r.Transport == t && r.URL != "" {
				return r, true
			}
		}
	}
	return Remote{}, false
}

// CheckedLive returns the entry's live check when it is of the endpoint a
// check would connect to now (a check of an endpoint the entry no longer
// lists says nothing), else nil.
func (e *Entry) CheckedLive() *LiveCheck {
	if e.Live == nil {
		return nil
	}
	if r, ok := e.LiveRemote(); !ok || r.URL != e.Live.URL {
		return nil
	}
	return e.Live
}

// CleanLiveTools bounds and cleans the tools a server listed: at most
// MaxLiveTools, names and descriptions valid UTF-8 without control
// characters, cut to their bounds; tools without a name are dropped.
func CleanLiveTools(tools []Tool) []Tool {
	out := make([]Tool, 0, min(len(tools), MaxLiveTools))
	for _, t := range tools {
		if len(out) == MaxLiveTools {
			break
		}
		t = Tool{Name: cleanText(t.Name, maxLiveToolName), Description: cleanText(t.Description, maxLiveToolDesc)}
		if t.Name != "" {
			out = append(out, t)
		}
	}
	return out
}

// CleanProtocolVersion bounds the protocol version a server named.
func CleanProtocolVersion(v string) string { return cleanText(v, maxLiveProtoVersion) }

// cleanText makes text from outside safe to store and show: valid UTF-8,
// control characters as spaces, runs of space folded, at most n bytes (cut
// at a rune boundary).
func cleanText(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// LiveSummary is what search items carry of an entry's live check.
type LiveSummary struct {
	Status     string    `json:"status"`
	CheckedAt  time.Time `json:"checked_at"`
	LatencyMS  int64     `json:"latency_ms"`
	ToolsCount int       `json:"tools_count"`
}

// Words is the status as people read it: "Up", "Needs sign-in", "Down".
func (s LiveSummary) Words() string {
	switch s.Status {
	case LiveUp:
		return "Up"
	case LiveAuthRequired:
		return "Needs sign-in"
	}
	return "Down"
}

// LiveDetail is what get_mcp_detail carries: the summary, the protocol
// version and the tools the server listed.
type LiveDetail struct {
	LiveSummary
	ProtocolVersion string `json:"protocol_version,omitempty"`
	Tools           []Tool `json:"tools"`
}

func newLiveSummary(c *LiveCheck) *LiveSummary {
	if c == nil {
		return nil
	}
	return &LiveSummary{Status: c.Status, CheckedAt: c.CheckedAt.UTC().Truncate(time.Second),
		LatencyMS: c.Latency.Milliseconds(), ToolsCount: len(c.Tools)}
}

func newLiveDetail(c *LiveCheck) *LiveDetail {
	if c == nil {
		return nil
	}
	return &LiveDetail{LiveSummary: *newLiveSummary(c), ProtocolVersion: c.ProtocolVersion, Tools: nonNil(c.Tools)}
}

// EncodeLiveTools is how stores keep a check's tools: a JSON list.
func EncodeLiveTools(tools []Tool) ([]byte, error) {
	b, err := json.Marshal(nonNil(tools))
	if err != nil {
		return nil, fmt.Errorf("encode live tools: %w", err)
	}
	return b, nil
}

// DecodeLiveCheck is a check as stores read it back: times in Unix
// nanoseconds, tools as EncodeLiveTools wrote them.
func DecodeLiveCheck(url, status string, checkedAt, latencyNS int64, protocolVersion string, tools []byte) (*LiveCheck, error) {
	c := &LiveCheck{URL: url, Status: status, CheckedAt: time.Unix(0, checkedAt).UTC(), Latency: time.Duration(latencyNS),
		ProtocolVersion: protocolVersion}
	if len(tools) > 0 {
		if err := json.Unmarshal(tools, &c.Tools); err != nil {
			return nil, err
		}
	}
	return c, nil
}
