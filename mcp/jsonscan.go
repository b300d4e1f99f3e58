package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A request's JSON read without decoding it whole: an object's members as
// sent, values skipped over, and whether a body is JSON at all. The
// endpoint reads a call's envelope this way (jsonrpc.go), in a fraction of
// what encoding/json's maps cost.

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
