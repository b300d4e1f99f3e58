package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

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
