package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdir/mcpdir"
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

// tools serves the two tools over an index. run is the tools' logic, the
// same whichever way a call arrives: through the SDK (sessions, the legacy
// transport, 2026-07-28) or the sessionless fast path (fast.go).
type tools struct {
	index Index
	log   *slog.Logger
	now   func() time.Time
	// Cached encodings of search items: full and lean.
	items, lean *mcpdir.EncodingCache
}

func newTools(index Index, log *slog.Logger) *tools {
	return &tools{index: index, log: log, now: time.Now,
		items: mcpdir.NewEncodingCache(mcpdir.EncodeSearchItemHead),
		lean:  mcpdir.NewEncodingCache(encodeLeanItem)}
}

// ours reports whether name is one of the directory's tools: calls of
// other names are refused by the SDK for free.
func ours(name string) bool { return name == toolSearch || name == toolDetail }

func (t *tools) register(s *sdk.Server, h sdk.ToolHandler) {
	s.AddTool(&sdk.Tool{
		Name:  toolSearch,
		Title: "Search MCP servers",
		Description: "Search the Open MCP Directory for MCP (Model Context Protocol) servers by keywords. " +
			"Returns JSON {success, data, count, total, keywords}: data lists up to `limit` servers (default 50, at most 100), best match first, " +
			"each with id, name, brief, website_url and transports (structuredContent adds tags, author, popularity and score). " +
			"To learn how to install or connect to a server, call get_mcp_detail with its id. " +
			"Use short, specific keywords (e.g. \"postgres\", \"slack\", \"browser automation\"); if nothing matches, try fewer or broader words. " +
			"Each call counts against the API key's hourly budget.",
		InputSchema:  json.RawMessage(searchInputSchema),
		OutputSchema: json.RawMessage(searchOutputSchema),
		Annotations:  readOnly("Search MCP servers"),
	}, h)
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
	}, h)
}

// searchOutput is a search's answer. It is encoded from cached item
// encodings (encodeSearch): the full items as structured content, and as
// text the lean items a model needs to choose a server and ask for its
// detail, since a model pays for every byte of text.
type searchOutput struct {
	hits     []mcpdir.Hit
	total    int
	keywords string
	limit    int
	notice   string
}

// leanItem is a search item as the text content carries it.
type leanItem struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Brief      string   `json:"brief"`
	WebsiteURL string   `json:"website_url"`
	Transports []string `json:"transports"`
}

// encodeLeanItem is the lean item's JSON, escaped to sit in the text's
// string literal.
func encodeLeanItem(e *mcpdir.Entry) []byte {
	it := mcpdir.NewSearchItem(mcpdir.Hit{Entry: e})
	b, _ := marshal(leanItem{ID: it.ID, Name: it.Name, Brief: it.Brief, WebsiteURL: it.WebsiteURL, Transports: it.Transports})
	return appendEscaped(nil, string(b))
}

// encodeSearch encodes a search's answer, {success, data, count, total,
// keywords, limit, notice?}, as structured content (full items) and as the
// string literal of the text (lean items), both from cached encodings (the
// lean items are cached escaped for the literal) into pooled buffers.
func (t *tools) encodeSearch(o *searchOutput) (structured, quotedText []byte) {
	// envelope appends the answer; raw appends JSON text as it must appear
	// (as is, or escaped inside the literal).
	envelope := func(dst []byte, items *mcpdir.EncodingCache, tail func([]byte, mcpdir.Hit) []byte, raw func([]byte, string) []byte) []byte {
		dst = raw(dst, `{"success":true,"data":[`)
		dst = items.AppendJoined(dst, o.hits, tail)
		dst = raw(dst, `],"count":`+strconv.Itoa(len(o.hits))+`,"total":`+strconv.Itoa(o.total)+`,"keywords":`)
		dst = raw(dst, string(appendString(nil, o.keywords)))
		dst = raw(dst, `,"limit":`+strconv.Itoa(o.limit))
		if o.notice != "" {
			dst = raw(dst, `,"notice":`)
			dst = raw(dst, string(appendString(nil, o.notice)))
		}
		return raw(dst, `}`)
	}
	asIs := func(dst []byte, s string) []byte { return append(dst, s...) }
	structured = envelope(pooledBuffer(), t.items, mcpdir.AppendItemScore, asIs)
	quotedText = envelope(append(pooledBuffer(), '"'), t.lean, nil, appendEscaped)
	return structured, append(quotedText, '"')
}

// appendString appends s as a JSON string, escaped as marshal escapes it
// (no HTML escaping), without marshal's allocations: the text of a search
// answer is kilobytes.
func appendString(dst []byte, s string) []byte {
	return append(appendEscaped(append(dst, '"'), s), '"')
}

// appendEscaped appends the inside of s's JSON string literal.
func appendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			if r == utf8.RuneError {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
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

func fail(code, format string, args ...any) *failure {
	return &failure{Error: failureError{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// errPanic is what a call whose tool panicked answers: a JSON-RPC internal
// error, with the details in the log only.
var errPanic = &jsonrpc.Error{Code: codeInternal, Message: "internal error"}

// call runs one call of a directory tool: it checks the arguments, spends
// the key's budget, and runs the tool. A call refused for its arguments
// spends nothing (the order REST keeps: the key, the input, the budget); a
// call refused for its budget, or whose budget could not be checked, does
// not run. The decision goes to spent (for the rate-limit headers) before
// the tool runs.
func (t *tools) call(ctx context.Context, guard mcpdir.Guard, key *mcpdir.APIKey, name string, args json.RawMessage, spent func(mcpdir.RateDecision)) (_ output, err error) {
	defer func() {
		if v := recover(); v != nil {
			t.log.ErrorContext(ctx, "mcp: tool panicked", "tool", name, "panic", v, "stack", string(debug.Stack()))
			err = errPanic
		}
	}()
	var run func() any
	var f *failure
	switch name {
	case toolSearch:
		run, f = t.search(args)
	case toolDetail:
		run, f = t.detail(args)
	default:
		f = fail(mcpdir.ECodeInvalidRequest, "unknown tool %q: use search_mcp or get_mcp_detail", clip(name, 60))
	}
	if f != nil {
		return t.result(ctx, f, true), nil
	}
	d, err := guard.Spend(ctx, key)
	if err != nil {
		t.log.ErrorContext(ctx, "mcp: spend budget", "tool", name, "err", err)
		if mcpdir.ErrorCode(err) == mcpdir.ECodeUnavailable {
			return t.result(ctx, fail(mcpdir.ECodeUnavailable, "%s", mcpdir.ErrorMessage(err)), true), nil
		}
		return t.result(ctx, fail(mcpdir.ECodeUnavailable, "the service could not check this API key's budget: try again in a minute"), true), nil
	}
	spent(d)
	if !d.Allowed {
		return t.result(ctx, rateLimited(d, t.now()), true), nil
	}
	v := run()
	_, failed := v.(*failure)
	return t.result(ctx, v, failed), nil
}

// search checks a search's arguments and returns the search to run.
func (t *tools) search(raw json.RawMessage) (func() any, *failure) {
	args, f := arguments(raw, `{"keywords": "postgres"}`)
	if f != nil {
		return nil, f
	}
	keywords, f := parseKeywords(args["keywords"])
	if f != nil {
		return nil, f
	}
	limit, notice, f := parseLimit(args["limit"])
	if f != nil {
		return nil, f
	}
	return func() any {
		res := t.index.Search(keywords, limit)
		hits := res.Hits[:min(len(res.Hits), limit)]
		if len(hits) == 0 {
			notice = strings.TrimSpace(notice + " No MCP server matched: try fewer, broader or differently spelled keywords.")
		}
		return &searchOutput{hits: hits, total: max(res.Total, len(hits)), keywords: keywords, limit: limit, notice: notice}
	}, nil
}

// detail checks a detail call's arguments and returns the lookup to run.
func (t *tools) detail(raw json.RawMessage) (func() any, *failure) {
	args, f := arguments(raw, `{"mcp_id": "<id from search_mcp>"}`)
	if f != nil {
		return nil, f
	}
	var id string
	if raw, present := args["mcp_id"]; !present || isNull(raw) {
		return nil, fail(mcpdir.ECodeInvalidRequest, "mcp_id is required: pass the id of a server from a search_mcp result")
	} else if json.Unmarshal(raw, &id) != nil {
		return nil, fail(mcpdir.ECodeInvalidRequest, "mcp_id must be a string: the UUID in the id field of a search_mcp result")
	}
	id = strings.ToLower(strings.TrimSpace(id))
	if !mcpdir.IsUUID(id) {
		return nil, fail(mcpdir.ECodeInvalidRequest,
			"mcp_id %q is not a UUID: pass the id field of a search_mcp result (36 characters, like 0b6e3a52-3c5f-5f0e-9d8a-1f2e3d4c5b6a), not the server's name", clip(id, 80))
	}
	return func() any {
		e, found := t.index.Get(id)
		if !found {
			return fail(mcpdir.ECodeNotFound, "no MCP server has id %s: search again with search_mcp and use an id from its results", id)
		}
		return &detailOutput{Success: true, Data: mcpdir.NewDetail(e)}
	}, nil
}

func rateLimited(d mcpdir.RateDecision, now time.Time) *failure {
	wait := time.Duration(mcpdir.RetryAfterSeconds(d)) * time.Second
	f := fail(mcpdir.ECodeRateLimited,
		"rate limited: this API key has used its %d tool calls for the hour. Retry in %s (after %s); do not retry sooner.",
		d.Limit, wait, now.Add(wait).UTC().Format(time.RFC3339))
	f.RetryAfter = int(wait / time.Second)
	return f
}

// output is a call's result: the spec's envelope holds a JSON document as
// text content (lean items for a search), and the full object as
// structured content for clients that read the output schema. The text is
// kept as a JSON string literal, ready to be written into a response.
type output struct {
	quotedText, structured []byte
	isError                bool
	pooled                 bool // the buffers come from outputBuffers
}

// outputBuffers recycles the buffers of search answers (tens of KB each).
var outputBuffers = sync.Pool{New: func() any { return new([]byte) }}

func pooledBuffer() []byte { return (*outputBuffers.Get().(*[]byte))[:0] }

// release gives the output's buffers back; it must not be used after.
func (o *output) release() {
	if o.pooled {
		for _, b := range [][]byte{o.quotedText, o.structured} {
			outputBuffers.Put(&b)
		}
		o.pooled = false
	}
}

func (t *tools) result(ctx context.Context, v any, isError bool) output {
	if s, ok := v.(*searchOutput); ok {
		structured, quotedText := t.encodeSearch(s)
		return output{quotedText: quotedText, structured: structured, pooled: true}
	}
	body, err := marshal(v)
	if err != nil {
		t.log.ErrorContext(ctx, "mcp: encode tool result", "err", err)
		body, _ = marshal(fail(mcpdir.ECodeInternal, "internal error: try again later"))
		isError = true
	}
	return output{quotedText: appendString(nil, string(body)), structured: body, isError: isError}
}

// sdkResult is the output as the SDK sends it.
func (o output) sdkResult() *sdk.CallToolResult {
	var text string
	json.Unmarshal(o.quotedText, &text) // a string literal appendString made
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: text}},
		StructuredContent: json.RawMessage(bytes.Clone(o.structured)),
		IsError:           o.isError,
	}
}

// appendResponse appends the JSON-RPC response that carries the output, as
// the SDK encodes it, to dst.
func (o output) appendResponse(dst []byte, id json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	dst = append(dst, `,"result":{"content":[{"type":"text","text":`...)
	dst = append(dst, o.quotedText...)
	dst = append(dst, `}],"structuredContent":`...)
	dst = append(dst, o.structured...)
	if o.isError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, "}}"...)
}

// arguments decodes a call's arguments object; absent arguments are empty.
func arguments(raw json.RawMessage, example string) (map[string]json.RawMessage, *failure) {
	args := map[string]json.RawMessage{}
	if len(raw) == 0 || isNull(raw) {
		return args, nil
	}
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return nil, fail(mcpdir.ECodeInvalidRequest, "arguments must be a JSON object, like %s", example)
	}
	return args, nil
}

// parseKeywords accepts a string, or a list of strings (some models split
// their search terms), and applies the keyword rule every interface shares.
func parseKeywords(raw json.RawMessage) (string, *failure) {
	const example = `pass search terms such as "postgres" or "github issues"`
	if len(raw) == 0 || isNull(raw) {
		return "", fail(mcpdir.ECodeMissingKeywords, "keywords is required: %s", example)
	}
	keywords, ok := unquote(raw)
	if !ok {
		var words []string
		if json.Unmarshal(raw, &words) != nil {
			return "", fail(mcpdir.ECodeInvalidKeywords, "keywords must be a string: %s", example)
		}
		keywords = strings.Join(words, " ")
	}
	keywords, err := mcpdir.ValidateKeywords(keywords)
	if err != nil {
		return "", fail(mcpdir.ErrorCode(err), "%s", mcpdir.ErrorMessage(err))
	}
	return keywords, nil
}

// parseLimit accepts a whole number (10 or 10.0, as LLM clients send both)
// or null, clamps it to 1..100, and says when it did.
func parseLimit(raw json.RawMessage) (limit int, notice string, _ *failure) {
	if len(raw) == 0 || isNull(raw) {
		return defaultLimit, "", nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) {
		return 0, "", fail(mcpdir.ECodeInvalidRequest,
			"limit must be a whole number from 1 to %d, or left out for %d", maxLimit, defaultLimit)
	}
	switch {
	case f < 1:
		return 1, fmt.Sprintf("limit %s is below the minimum: used 1.", formatNumber(f)), nil
	case f > maxLimit:
		return maxLimit, fmt.Sprintf("limit %s is above the maximum: used %d.", formatNumber(f), maxLimit), nil
	}
	return int(f), "", nil
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
