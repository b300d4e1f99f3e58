package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
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

// member is a member of a JSON object, its value as sent.
type member struct {
	name  string
	value json.RawMessage
}

// object is a JSON object's members, in the order sent. A request's
// objects hold a handful each, so a lookup reads them in turn: a map for
// each (params, _meta, arguments) cost more to build than the rest of the
// endpoint's reading of a call.
type object []member

// get returns the value of a member, the last of its name as encoding/json
// keeps it; nil if there is none (a value present is never empty).
func (o object) get(name string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].name == name {
			return o[i].value
		}
	}
	return nil
}

// toMap returns the members as json.Unmarshal into a map of raw members
// gives them.
func (o object) toMap() map[string]json.RawMessage {
	members := make(map[string]json.RawMessage, len(o))
	for _, m := range o {
		members[m.name] = m.value
	}
	return members
}

// decodeMembers appends the members of a JSON object to dst, as
// json.Unmarshal into a map[string]json.RawMessage decodes them: the
// values are slices of raw, not copies. raw must be valid JSON (checked
// once, for the whole body); a key with escapes or non-ASCII bytes is left
// to encoding/json. It fails for anything but an object.
func decodeMembers(dst object, raw []byte) (object, error) {
	if members, ok := splitObject(dst, raw); ok {
		return members, nil
	}
	var decoded map[string]json.RawMessage
	err := json.Unmarshal(raw, &decoded)
	if err == nil && decoded == nil {
		err = errNotObject
	}
	if err != nil {
		return nil, err
	}
	dst = make(object, 0, len(decoded))
	for name, value := range decoded {
		dst = append(dst, member{name, value})
	}
	return dst, nil
}

// decodeObject decodes a JSON object into a map of its members, as
// json.Unmarshal does (see decodeMembers).
func decodeObject(raw []byte) (map[string]json.RawMessage, error) {
	var buf [8]member
	members, err := decodeMembers(buf[:0], raw)
	if err != nil {
		return nil, err
	}
	return members.toMap(), nil
}

var errNotObject = errors.New("not a JSON object")

// splitObject appends the members of valid JSON that is an object to dst;
// ok is false when it is not an object or a key is not plain ASCII.
func splitObject(dst object, raw []byte) (_ object, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	members := dst[:0]
	if members == nil {
		members = object{} // an object without members is not absent
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return members, true
	}
	for i < len(raw) && raw[i] == '"' {
		start := i + 1
		end := start
		for end < len(raw) && raw[end] != '"' {
			if c := raw[end]; c == '\\' || c >= 0x80 {
				return nil, false
			}
			end++
		}
		name := intern(raw[start:end])
		i = skipSpace(raw, end+1) // at ':'
		i = skipSpace(raw, i+1)
		valueEnd := skipValue(raw, i)
		members = append(members, member{name, raw[i:valueEnd:valueEnd]})
		i = skipSpace(raw, valueEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
			continue
		}
		return members, i < len(raw) && raw[i] == '}'
	}
	return nil, false
}

// intern returns the names and values common in requests without
// allocating, and a copy of any other.
func intern(b []byte) string {
	for _, s := range [...]string{"jsonrpc", "2.0", "id", "method", "tools/call", "params", "name", toolSearch, toolDetail, toolTools,
		"arguments", "_meta", "keywords", "limit", "mcp_id", protocolMeta, capabilitiesMeta, modernVersion, "tools/list"} {
		if string(b) == s {
			return s
		}
	}
	return string(b)
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value that starts at i.
func skipValue(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// maxNestingDepth is how deep encoding/json lets arrays and objects nest.
const maxNestingDepth = 10000

// validJSON reports whether data is one JSON value, exactly as json.Valid
// does (FuzzValidJSON compares them), in a third to a half of its time:
// json.Valid steps a state machine through a function call a byte, and was
// the most of reading a call's body after its maps.
func validJSON(data []byte) bool {
	var buf [32]bool
	open := buf[:0] // the containers a value is in: true for an object
	i := 0
	for {
		// A value starts at i, after space.
		i = skipSpace(data, i)
		if i >= len(data) {
			return false
		}
		switch c := data[i]; c {
		case '{', '[':
			if len(open) == maxNestingDepth {
				return false
			}
			isObject := c == '{'
			open = append(open, isObject)
			if i = skipSpace(data, i+1); i < len(data) && data[i] == closing(isObject) {
				open = open[:len(open)-1]
				i++
				break
			}
			if isObject {
				i = skipKey(data, i)
			}
			if i < 0 {
				return false
			}
			continue
		case '"':
			i = skipString(data, i)
		case 't':
			i = skipLiteral(data, i, "true")
		case 'f':
			i = skipLiteral(data, i, "false")
		case 'n':
			i = skipLiteral(data, i, "null")
		default:
			i = skipNumber(data, i)
		}
		if i < 0 {
			return false
		}
		// After a value: the containers it ends close, until a comma
		// starts the next member or element.
		for {
			i = skipSpace(data, i)
			if len(open) == 0 {
				return i == len(data)
			}
			if i >= len(data) {
				return false
			}
			isObject := open[len(open)-1]
			if data[i] == ',' {
				if i++; isObject {
					i = skipKey(data, skipSpace(data, i))
				}
				if i < 0 {
					return false
				}
				break
			}
			if data[i] != closing(isObject) {
				return false
			}
			open = open[:len(open)-1]
			i++
		}
	}
}

// closing is the byte that ends an object or an array.
func closing(isObject bool) byte {
	if isObject {
		return '}'
	}
	return ']'
}

// skipKey returns where the value of the member whose name starts at i
// starts (before space), or -1 if there is no name and colon there.
func skipKey(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = skipString(data, i); i < 0 {
		return -1
	}
	if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
		return -1
	}
	return i + 1
}

// skipString returns the end of the JSON string that starts at i, or -1 if
// it is not one.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		if plainInString[data[i]] {
			continue
		}
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			if i++; i >= len(data) {
				return -1
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

// plainInString marks the bytes a JSON string holds as they are: all but
// the quote, the backslash and control characters.
var plainInString = func() (plain [256]bool) {
	for c := 0x20; c < 256; c++ {
		plain[c] = c != '"' && c != '\\'
	}
	return plain
}()

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipNumber returns the end of the JSON number that starts at i, or -1 if
// it is not one.
func skipNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && isDigit(data[i]):
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		for i++; i < len(data) && isDigit(data[i]); i++ {
		}
	}
	return i
}

// skipLiteral returns the end of lit at i, or -1 if it is not there.
func skipLiteral(data []byte, i int, lit string) int {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}
