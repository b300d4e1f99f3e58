package wire

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// MarshalPlain is json.Marshal without HTML escaping: an error's message
// reads "Bearer <key>", not "Bearer \u003ckey\u003e". Bodies are read by
// people and models, never embedded in HTML (application/json, nosniff).
func MarshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// StringStyle is how AppendJSONString writes what JSON leaves to the
// writer: whether <, > and & are escaped, and \b and \f in short.
type StringStyle uint8

const (
	// AsMarshal is as json.Marshal writes a string: <, > and & escaped.
	AsMarshal StringStyle = iota
	// AsMarshalPlain is as MarshalPlain writes it: <, > and & as they are.
	AsMarshalPlain
	// AsSlog is as log/slog's JSON handler writes it: <, > and & as they
	// are, and \b and \f as \u0008 and \u000c.
	AsSlog
)

// AppendJSONString appends s as a JSON string literal in style: quotes,
// backslashes and control characters escaped, invalid UTF-8 as U+FFFD,
// U+2028 and U+2029 escaped, without encoding/json's reflection and
// allocations (a search answer's text is kilobytes).
func AppendJSONString(dst []byte, s string, style StringStyle) []byte {
	return append(AppendJSONEscaped(append(dst, '"'), s, style), '"')
}

// AppendJSONEscaped appends the inside of s's JSON string literal in
// style (AppendJSONString).
func AppendJSONEscaped(dst []byte, s string, style StringStyle) []byte {
	const hex = "0123456789abcdef"
	html, short := style == AsMarshal, style != AsSlog
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf && !(html && (c == '<' || c == '>' || c == '&')) {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b' && short:
				dst = append(dst, '\\', 'b')
			case c == '\f' && short:
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
