package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// JSON-RPC error codes. The standard ones are JSON-RPC 2.0's; the rest are in
// the implementation-defined range (-32000 to -32019) that MCP leaves to
// servers, plus the SDK's -32022 for a protocol version we do not speak.
// Every error body also carries a stable string in error.data.code.
const (
	codeParseError      = -32700
	codeInvalidRequest  = -32600
	codeMethodNotFound  = -32601
	codeInvalidParams   = -32602
	codeInternal        = -32603
	codeTransport       = -32000 // the HTTP request itself is unacceptable
	codeUnauthorized    = -32001 // missing, invalid, expired or revoked key
	codeForbidden       = -32003 // foreign Origin or Host
	codeSessionNotFound = -32004 // unknown, ended or someone else's session
	codeLimitExceeded   = -32005 // too many sessions or streams for the key
	codeUnsupportedVer  = -32022 // SDK's CodeUnsupportedProtocolVersion
)

// Stable data.code strings that mcpdir's own error codes do not cover.
const (
	dataParseError         = "parse_error"
	dataMethodNotFound     = "method_not_found"
	dataNotAcceptable      = "not_acceptable"
	dataUnsupportedMedia   = "unsupported_media_type"
	dataUnsupportedVersion = "unsupported_protocol_version"
	dataSessionNotFound    = "session_not_found"
	dataSessionRequired    = "session_required"
	dataTooManySessions    = "too_many_sessions"
	dataTooManyStreams     = "too_many_streams"
	dataStreamConflict     = "stream_conflict"
	dataBatchNotSupported  = "batch_not_supported"
	dataAnswerTooLarge     = "answer_too_large"
)

// rpcError is the error member of a JSON-RPC response.
type rpcError struct {
	Code    int     `json:"code"`
	Message string  `json:"message"`
	Data    rpcData `json:"data"`
}

// rpcData is error.data: the stable code, and for an unsupported protocol
// version the SDK's UnsupportedProtocolVersionData fields, which the SDK's
// client reads to negotiate.
type rpcData struct {
	Code      string   `json:"code"`
	Supported []string `json:"supported,omitempty"`
	Requested string   `json:"requested,omitempty"`
}

type rpcErrorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

var nullID = json.RawMessage("null")

// writeRPCError answers with a JSON-RPC error response. id is the request's
// id when one was read, else nil (written as null, as JSON-RPC requires).
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, e rpcError) {
	if id == nil {
		id = nullID
	}
	body, err := wire.MarshalPlain(rpcErrorResponse{JSONRPC: "2.0", ID: id, Error: e})
	if err != nil {
		// Only an invalid id could fail, and ids are validated before use.
		body = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error","data":{"code":"internal"}}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Del("Content-Length")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(body)
}

// message is one JSON-RPC message of a POST body, kept as its raw members so
// that it can be re-encoded after injecting a budget ticket.
type message struct {
	fields map[string]json.RawMessage // as the SDK gets them (ids stood in for)
	method string                     // empty for a response from the client
	id     json.RawMessage            // nil for a notification
	params object                     // nil when absent or null
	// tool is params.name of a tools/call.
	tool string
	// standIn is set when the SDK gets a stand-in for id (ids.go), so the
	// body must be re-encoded.
	standIn bool
	// paramsBuf holds params's members, so that a message of a few
	// needs no allocation of its own for them.
	paramsBuf [4]member
}

func (m *message) isCall() bool { return m.method != "" && m.id != nil }

// protocolMeta is the SEP-2575 per-request _meta key that marks a request of
// the 2026-07-28 era.
const protocolMeta = "io.modelcontextprotocol/protocolVersion"

// metaVersion returns the protocol version a request carries in its _meta.
func (m *message) metaVersion() string {
	var buf [4]member
	meta, err := decodeMembers(buf[:0], m.params.get("_meta"))
	if err != nil {
		return ""
	}
	var v string
	json.Unmarshal(meta.get(protocolMeta), &v)
	return v
}

// unquote decodes a JSON string: directly when it has no escapes (the
// common case, and a third of the cost of a tool call when every string
// went through encoding/json), else through encoding/json.
func unquote(raw json.RawMessage) (string, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		plain := true
		for _, c := range raw[1 : n-1] {
			if c == '\\' || c == '"' || c < 0x20 || c >= 0x80 {
				plain = false
				break
			}
		}
		if plain {
			return intern(raw[1 : n-1]), true
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil
}

// parseError is a body that is not JSON-RPC: what to answer.
type parseError struct {
	id   json.RawMessage
	err  rpcError
	resp int // HTTP status
}

func invalidRequest(id json.RawMessage, format string, args ...any) *parseError {
	return &parseError{id: id, resp: http.StatusBadRequest, err: rpcError{
		Code: codeInvalidRequest, Message: fmt.Sprintf(format, args...),
		Data: rpcData{Code: mcpdir.ECodeInvalidRequest},
	}}
}

// MaxBatch is the most messages a JSON-RPC batch may hold (batches exist
// in protocol versions before 2025-06-18): a batch costs no budget until
// its tool calls, and its answer grows with it.
const MaxBatch = 16

var notJSON = &parseError{resp: http.StatusBadRequest, err: rpcError{
	Code: codeParseError, Message: "the body is not valid JSON: send one JSON-RPC 2.0 message",
	Data: rpcData{Code: dataParseError},
}}

// parseBody reads a POST body as one JSON-RPC message or a batch of them,
// checking what the SDK would otherwise reject with a plain-text 400.
func parseBody(body []byte) (msgs []*message, batch bool, _ *parseError) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, false, notJSON
	}
	if !validJSON(body) {
		return nil, body[0] == '[', notJSON
	}
	if body[0] != '[' {
		fields, _ := decodeObject(body)
		m, perr := parseMessage(fields)
		if perr != nil {
			return nil, false, perr
		}
		return []*message{m}, false, nil
	}
	batch = true
	var raws []json.RawMessage
	if json.Unmarshal(body, &raws) != nil {
		return nil, true, notJSON
	}
	if len(raws) == 0 {
		return nil, true, invalidRequest(nil, "the batch is empty")
	}
	if len(raws) > MaxBatch {
		return nil, true, invalidRequest(nil, "the batch holds %d messages, more than the %d allowed: send fewer per POST", len(raws), MaxBatch)
	}
	for _, raw := range raws {
		fields, _ := decodeObject(raw)
		m, perr := parseMessage(fields)
		if perr != nil {
			return nil, batch, perr
		}
		msgs = append(msgs, m)
	}
	return msgs, batch, nil
}

// parseMessage reads one message's members (nil: it was not an object).
func parseMessage(fields map[string]json.RawMessage) (*message, *parseError) {
	m := message{fields: fields}
	if m.fields == nil {
		return nil, invalidRequest(nil, "a JSON-RPC message must be an object")
	}
	if id, ok := m.fields["id"]; ok {
		if !validID(id) {
			return nil, invalidRequest(nil, "id must be a string or a number")
		}
		m.id = id
		m.fields["id"], m.standIn = standIn(id)
	}
	if version, _ := unquote(m.fields["jsonrpc"]); version != "2.0" {
		return nil, invalidRequest(m.id, `jsonrpc must be "2.0"`)
	}
	method, hasMethod := m.fields["method"]
	if !hasMethod {
		// A response to a request the server sent (sampling, roots, …).
		_, hasResult := m.fields["result"]
		_, hasError := m.fields["error"]
		if m.id == nil || hasResult == hasError {
			return nil, invalidRequest(m.id, "a message needs a method, or an id and one of result and error")
		}
		return &m, nil
	}
	if m.method, _ = unquote(method); m.method == "" {
		return nil, invalidRequest(m.id, "method must be a non-empty string")
	}
	if p, ok := m.fields["params"]; ok && !bytes.Equal(p, nullID) {
		var err error
		if m.params, err = decodeMembers(m.paramsBuf[:0], p); err != nil {
			return nil, invalidRequest(m.id, "params must be an object")
		}
	}
	if m.method == "tools/call" {
		m.tool, _ = unquote(m.params.get("name"))
	}
	return &m, nil
}

func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// encodeBody re-encodes messages as a body of the same shape.
func encodeBody(msgs []*message, batch bool) ([]byte, error) {
	fields := make([]map[string]json.RawMessage, len(msgs))
	for i, m := range msgs {
		fields[i] = m.fields
	}
	if batch {
		return json.Marshal(fields)
	}
	return json.Marshal(fields[0])
}

// methodRule is what the SDK's server requires of a method it receives.
type methodRule struct {
	notification bool // must come without an id
	needsParams  bool // params must be present
}

// knownMethods are the methods the SDK's server receives, with the rules it
// enforces (its serverMethodInfos in v1.8.0). It answers any breach with a
// plain-text 400 in every era but 2026-07-28; checking first lets us answer
// JSON-RPC bodies everywhere.
var knownMethods = map[string]methodRule{
	"completion/complete":              {needsParams: true},
	"server/discover":                  {},
	"initialize":                       {needsParams: true},
	"ping":                             {},
	"prompts/list":                     {},
	"prompts/get":                      {needsParams: true},
	"tools/list":                       {},
	"tools/call":                       {needsParams: true},
	"resources/list":                   {},
	"resources/templates/list":         {},
	"resources/read":                   {needsParams: true},
	"logging/setLevel":                 {needsParams: true},
	"resources/subscribe":              {needsParams: true},
	"subscriptions/listen":             {needsParams: true},
	"resources/unsubscribe":            {needsParams: true},
	"notifications/cancelled":          {notification: true},
	"notifications/initialized":        {notification: true},
	"notifications/roots/list_changed": {notification: true},
	"notifications/progress":           {notification: true, needsParams: true},
}
