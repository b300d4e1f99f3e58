package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
	mcphttp "github.com/mcpdir/mcpdir/http"
)

// Tool names, as the spec gives them.
const (
	toolSearch = "search_mcp"
	toolDetail = "get_mcp_detail"
)

// search_mcp's limit: the spec's default, and the bounds values are clamped to.
const (
	defaultLimit = 50
	maxLimit     = 100
)

// The schemas avoid "format" and type arrays: some LLM clients (Gemini's
// function calling among them) reject schemas that use them.
const searchInputSchema = `{
  "type": "object",
  "properties": {
    "keywords": {
      "type": "string",
      "minLength": 1,
      "description": "Search terms, e.g. \"postgres\", \"github issues\" or \"browser automation\". Matched against the names, descriptions, tags and tools of MCP servers; short, specific words work best."
    },
    "limit": {
      "type": "number",
      "minimum": 1,
      "maximum": 100,
      "default": 50,
      "description": "Maximum number of results: a whole number from 1 to 100 (default 50). Values outside that range are clamped."
    }
  },
  "required": ["keywords"]
}`

const detailInputSchema = `{
  "type": "object",
  "properties": {
    "mcp_id": {
      "type": "string",
      "minLength": 36,
      "maxLength": 36,
      "description": "The MCP server's id: the UUID in the id field of a search_mcp result, e.g. \"0b6e3a52-3c5f-5f0e-9d8a-1f2e3d4c5b6a\"."
    }
  },
  "required": ["mcp_id"]
}`

// failureProperties are the members of a failed call's JSON, in both
// tools' output schemas: a result that validates whether it failed or not.
const failureProperties = `
    "error": {
      "type": "object",
      "description": "Why the call failed and what to do (only when success is false).",
      "properties": {
        "code": {"type": "string", "description": "Stable error code, e.g. not_found, invalid_request, rate_limited, missing_keywords."},
        "message": {"type": "string", "description": "What went wrong and what to do next."}
      },
      "required": ["code", "message"]
    },
    "retry_after_seconds": {"type": "integer", "description": "When rate limited: seconds until a call can succeed."}`

const stringArray = `{"type": "array", "items": {"type": "string"}}`

const searchOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "Whether the search ran."},
    "data": {
      "type": "array",
      "description": "Matching MCP servers, best first.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "UUID of the server: pass it to get_mcp_detail."},
          "name": {"type": "string"},
          "title": {"type": "string"},
          "brief": {"type": "string", "description": "One-line description."},
          "website_url": {"type": "string"},
          "repository_url": {"type": "string"},
          "author_name": {"type": "string"},
          "tags": ` + stringArray + `,
          "transports": ` + stringArray + `,
          "is_official": {"type": "boolean"},
          "is_verified": {"type": "boolean"},
          "popularity": {"type": "integer"},
          "score": {"type": "number", "description": "Relevance to the keywords; higher is better."}
        },
        "required": ["id", "name", "brief", "website_url", "tags", "transports", "is_official", "is_verified", "popularity", "score"]
      }
    },
    "count": {"type": "integer", "description": "Number of items in data."},
    "total": {"type": "integer", "description": "Number of servers that match, of which data holds the best."},
    "keywords": {"type": "string", "description": "The keywords searched for."},
    "limit": {"type": "integer", "description": "The limit applied, after clamping."},
    "notice": {"type": "string", "description": "Advice about the results, e.g. a clamped limit or no matches."},` + failureProperties + `
  },
  "required": ["success"]
}`

const detailOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "Whether the server was found."},
    "data": {
      "type": "object",
      "description": "The full record of the MCP server.",
      "properties": {
        "id": {"type": "string"},
        "uuid": {"type": "string", "description": "Same as id."},
        "name": {"type": "string"},
        "title": {"type": "string"},
        "brief": {"type": "string"},
        "description": {"type": "string"},
        "website_url": {"type": "string"},
        "repository_url": {"type": "string"},
        "repository": {"type": "object", "properties": {"url": {"type": "string"}, "source": {"type": "string"}}},
        "author_name": {"type": "string"},
        "tags": ` + stringArray + `,
        "categories": ` + stringArray + `,
        "transports": ` + stringArray + `,
        "packages": {
          "type": "array",
          "description": "Ways to install the server from a package registry.",
          "items": {
            "type": "object",
            "properties": {
              "registry_type": {"type": "string", "description": "npm, pypi, oci, nuget, mcpb, cargo, …"},
              "identifier": {"type": "string"},
              "version": {"type": "string"},
              "transport": {"type": "string"},
              "runtime_hint": {"type": "string"}
            },
            "required": ["registry_type", "identifier"]
          }
        },
        "remotes": {
          "type": "array",
          "description": "Hosted endpoints of the server.",
          "items": {
            "type": "object",
            "properties": {"url": {"type": "string"}, "transport": {"type": "string"}},
            "required": ["url", "transport"]
          }
        },
        "tools": {
          "type": "array",
          "description": "Tools the server offers.",
          "items": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
            "required": ["name"]
          }
        },
        "license": {"type": "string"},
        "version": {"type": "string"},
        "is_official": {"type": "boolean"},
        "is_verified": {"type": "boolean"},
        "is_recommended": {"type": "boolean"},
        "popularity": {"type": "integer"},
        "clicks": {"type": "integer"},
        "metadata": {"type": "object", "properties": {"version": {"type": "string"}, "license": {"type": "string"}}},
        "created_at": {"type": "string", "description": "RFC 3339 time."},
        "updated_at": {"type": "string", "description": "RFC 3339 time."},
        "extra": {"type": "object", "description": "Fields of the imported record the directory does not model."}
      },
      "required": ["id", "name", "brief", "website_url", "tags", "transports", "packages", "remotes", "tools"]
    },` + failureProperties + `
  },
  "required": ["success"]
}`

func boolPtr(b bool) *bool { return &b }

// readOnly is both tools' annotations: they only read the directory, a
// closed data set, and repeating a call changes nothing.
func readOnly(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title: title, ReadOnlyHint: true, IdempotentHint: true,
		DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false),
	}
}

// tools serves the two tools over an index.
type tools struct {
	index   Index
	tickets *ticketBox
	log     *slog.Logger
	now     func() time.Time
}

func (t *tools) register(s *sdk.Server) {
	s.AddTool(&sdk.Tool{
		Name:  toolSearch,
		Title: "Search MCP servers",
		Description: "Search the Open MCP Directory for MCP (Model Context Protocol) servers by keywords. " +
			"Returns JSON {success, data, count, total, keywords}: data lists up to `limit` servers (default 50, at most 100), best match first, " +
			"each with id, name, brief, website_url, tags and transports. " +
			"To learn how to install or connect to a server, call get_mcp_detail with its id. " +
			"Use short, specific keywords (e.g. \"postgres\", \"slack\", \"browser automation\"); if nothing matches, try fewer or broader words. " +
			"Each call counts against the API key's hourly budget.",
		InputSchema:  json.RawMessage(searchInputSchema),
		OutputSchema: json.RawMessage(searchOutputSchema),
		Annotations:  readOnly("Search MCP servers"),
	}, t.search)
	s.AddTool(&sdk.Tool{
		Name:  toolDetail,
		Title: "Get MCP server details",
		Description: "Get the full record of one MCP server in the Open MCP Directory by its id, the UUID in the id field of a search_mcp result. " +
			"Returns JSON {success, data}: data has the description, website and repository, author, license, version, tags, categories, transports, " +
			"install packages (npm, PyPI, OCI, …), hosted remote endpoints and the tools the server offers. " +
			"Each call counts against the API key's hourly budget.",
		InputSchema:  json.RawMessage(detailInputSchema),
		OutputSchema: json.RawMessage(detailOutputSchema),
		Annotations:  readOnly("Get MCP server details"),
	}, t.detail)
}

type searchOutput struct {
	Success  bool                `json:"success"`
	Data     []mcpdir.SearchItem `json:"data"`
	Count    int                 `json:"count"`
	Total    int                 `json:"total"`
	Keywords string              `json:"keywords"`
	Limit    int                 `json:"limit"`
	Notice   string              `json:"notice,omitempty"`
}

type detailOutput struct {
	Success bool          `json:"success"`
	Data    mcpdir.Detail `json:"data"`
}

// failure is a call that failed in a way the model can act on.
type failure struct {
	Success    bool         `json:"success"`
	Error      failureError `json:"error"`
	RetryAfter int          `json:"retry_after_seconds,omitempty"`
}

type failureError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func fail(code, format string, args ...any) failure {
	return failure{Error: failureError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

func (t *tools) search(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if f, ok := t.admit(ctx, req); !ok {
		return t.result(ctx, f, true), nil
	}
	args, f, ok := arguments(req.Params.Arguments, `{"keywords": "postgres"}`)
	if !ok {
		return t.result(ctx, f, true), nil
	}
	keywords, f, ok := parseKeywords(args["keywords"])
	if !ok {
		return t.result(ctx, f, true), nil
	}
	limit, notice, f, ok := parseLimit(args["limit"])
	if !ok {
		return t.result(ctx, f, true), nil
	}
	res := t.index.Search(keywords, limit)
	hits := res.Hits[:min(len(res.Hits), limit)]
	out := searchOutput{
		Success: true, Data: make([]mcpdir.SearchItem, 0, len(hits)), Count: len(hits),
		Total: max(res.Total, len(hits)), Keywords: keywords, Limit: limit, Notice: notice,
	}
	for _, h := range hits {
		out.Data = append(out.Data, mcpdir.NewSearchItem(h))
	}
	if len(hits) == 0 {
		out.Notice = strings.TrimSpace(out.Notice + " No MCP server matched: try fewer, broader or differently spelled keywords.")
	}
	return t.result(ctx, out, false), nil
}

func (t *tools) detail(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if f, ok := t.admit(ctx, req); !ok {
		return t.result(ctx, f, true), nil
	}
	args, f, ok := arguments(req.Params.Arguments, `{"mcp_id": "<id from search_mcp>"}`)
	if !ok {
		return t.result(ctx, f, true), nil
	}
	var id string
	if raw, present := args["mcp_id"]; !present || isNull(raw) {
		return t.result(ctx, fail(mcpdir.ECodeInvalidRequest,
			"mcp_id is required: pass the id of a server from a search_mcp result"), true), nil
	} else if json.Unmarshal(raw, &id) != nil {
		return t.result(ctx, fail(mcpdir.ECodeInvalidRequest,
			"mcp_id must be a string: the UUID in the id field of a search_mcp result"), true), nil
	}
	id = strings.ToLower(strings.TrimSpace(id))
	if !mcpdir.IsUUID(id) {
		return t.result(ctx, fail(mcpdir.ECodeInvalidRequest,
			"mcp_id %q is not a UUID: pass the id field of a search_mcp result (36 characters, like 0b6e3a52-3c5f-5f0e-9d8a-1f2e3d4c5b6a), not the server's name", clip(id, 80)), true), nil
	}
	e, found := t.index.Get(id)
	if !found {
		return t.result(ctx, fail(mcpdir.ECodeNotFound,
			"no MCP server has id %s: search again with search_mcp and use an id from its results", id), true), nil
	}
	return t.result(ctx, detailOutput{Success: true, Data: mcpdir.NewDetail(e)}, false), nil
}

// admit redeems the call's budget ticket: a rate-limited call or one whose
// budget could not be checked does not run.
func (t *tools) admit(ctx context.Context, req *sdk.CallToolRequest) (failure, bool) {
	id, _ := req.Params.Meta[ticketMeta].(string)
	tk, ok := t.tickets.redeem(id)
	switch {
	case !ok:
		// Every call through the endpoint gets a ticket; one without could
		// only come from a path that skipped the HTTP layer.
		t.log.ErrorContext(ctx, "mcp: tool call without a budget ticket", "tool", req.Params.Name)
		return fail(mcpdir.ECodeInternal, "internal error: try the call again"), false
	case tk.err != nil:
		t.log.ErrorContext(ctx, "mcp: spend budget", "tool", req.Params.Name, "err", tk.err)
		if mcpdir.ErrorCode(tk.err) == mcpdir.ECodeUnavailable {
			return fail(mcpdir.ECodeUnavailable, "%s", mcpdir.ErrorMessage(tk.err)), false
		}
		return fail(mcpdir.ECodeUnavailable, "the service could not check this API key's budget: try again in a minute"), false
	case !tk.decision.Allowed:
		return rateLimited(tk.decision, t.now()), false
	}
	return failure{}, true
}

func rateLimited(d mcpdir.RateDecision, now time.Time) failure {
	// Whole seconds rounded up, as the Retry-After header has them.
	wait := max(time.Second, (d.RetryAfter + time.Second - 1).Truncate(time.Second))
	f := fail(mcpdir.ECodeRateLimited,
		"rate limited: this API key has used its %d tool calls for the hour. Retry in %s (after %s); do not retry sooner.",
		d.Limit, wait, now.Add(wait).UTC().Format(time.RFC3339))
	f.RetryAfter = int(wait / time.Second)
	return f
}

// result is the spec's envelope: the JSON as text content, and the same
// object as structured content for clients that read the output schema.
func (t *tools) result(ctx context.Context, v any, isError bool) *sdk.CallToolResult {
	body, err := marshal(v)
	if err != nil {
		t.log.ErrorContext(ctx, "mcp: encode tool result", "err", err)
		body, _ = marshal(fail(mcpdir.ECodeInternal, "internal error: try again later"))
		isError = true
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body),
		IsError:           isError,
	}
}

// arguments decodes a call's arguments object; absent arguments are empty.
func arguments(raw json.RawMessage, example string) (map[string]json.RawMessage, failure, bool) {
	args := map[string]json.RawMessage{}
	if len(raw) == 0 || isNull(raw) {
		return args, failure{}, true
	}
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return nil, fail(mcpdir.ECodeInvalidRequest, "arguments must be a JSON object, like %s", example), false
	}
	return args, failure{}, true
}

// parseKeywords accepts a string, or a list of strings (some models split
// their search terms), and refuses blank or over-long keywords.
func parseKeywords(raw json.RawMessage) (string, failure, bool) {
	const example = `pass search terms such as "postgres" or "github issues"`
	if len(raw) == 0 || isNull(raw) {
		return "", fail(mcpdir.ECodeMissingKeywords, "keywords is required: %s", example), false
	}
	var keywords string
	if json.Unmarshal(raw, &keywords) != nil {
		var words []string
		if json.Unmarshal(raw, &words) != nil {
			return "", fail(mcpdir.ECodeInvalidKeywords, "keywords must be a string: %s", example), false
		}
		keywords = strings.Join(words, " ")
	}
	keywords = strings.Join(strings.Fields(keywords), " ")
	if keywords == "" {
		return "", fail(mcpdir.ECodeMissingKeywords, "keywords is blank: %s", example), false
	}
	if len(keywords) > mcphttp.MaxKeywordsBytes {
		return "", fail(mcpdir.ECodeInvalidKeywords,
			"keywords is longer than %d bytes: use a few distinctive words", mcphttp.MaxKeywordsBytes), false
	}
	return keywords, failure{}, true
}

// parseLimit accepts a whole number (10 or 10.0, as LLM clients send both)
// or null, clamps it to 1..100, and says when it did.
func parseLimit(raw json.RawMessage) (limit int, notice string, _ failure, _ bool) {
	if len(raw) == 0 || isNull(raw) {
		return defaultLimit, "", failure{}, true
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) {
		return 0, "", fail(mcpdir.ECodeInvalidRequest,
			"limit must be a whole number from 1 to %d, or left out for %d", maxLimit, defaultLimit), false
	}
	switch {
	case f < 1:
		return 1, fmt.Sprintf("limit %s is below the minimum: used 1.", formatNumber(f)), failure{}, true
	case f > maxLimit:
		return maxLimit, fmt.Sprintf("limit %s is above the maximum: used %d.", formatNumber(f), maxLimit), failure{}, true
	}
	return int(f), "", failure{}, true
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// clip shortens what a client sent before echoing it in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
