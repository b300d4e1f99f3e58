package mcp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// output is a call's result: the spec's envelope holds a JSON document as
// text content (lean items for a search), and the full object as
// structured content for clients that read the output schema. A search's
// is written straight into the answer from cached item encodings, unless
// answers are kept (then it is encoded once, as a detail's is); any
// other's is encoded, the text as a JSON string literal.
type output struct {
	search *searchOutput
	t      *tools
	encodedOutput
	isError bool
}

// encodedOutput is an output kept encoded: the text as a JSON string
// literal, and the structured content.
type encodedOutput struct {
	quotedText, structured []byte
	// total is a search's count of matches (the insight counts a kept
	// answer's search too).
	total int
}

func (e *encodedOutput) size() int { return len(e.quotedText) + len(e.structured) }

// outputBuffers recycles the buffers of answers (tens of KB each).
var outputBuffers = sync.Pool{New: func() any { return new([]byte) }}

func pooledBuffer() []byte { return (*outputBuffers.Get().(*[]byte))[:0] }

func (t *tools) result(ctx context.Context, v any, isError bool) output {
	switch v := v.(type) {
	case *searchOutput:
		return output{search: v, t: t}
	case *encodedOutput:
		return output{encodedOutput: *v}
	}
	enc, err := encode(v)
	if err != nil {
		t.log.ErrorContext(ctx, "mcp: encode tool result", "err", err)
		enc, _ = encode(fail(mcpdir.ECodeInternal, "internal error: try again later"))
		isError = true
	}
	return output{encodedOutput: *enc, isError: isError}
}

// encode is v's output encoded: the text is the JSON as marshal writes it;
// the SDK writes both the text's literal and the structured content as
// encoding/json does, with <, > and & escaped.
func encode(v any) (*encodedOutput, error) {
	body, err := wire.MarshalPlain(v)
	if err != nil {
		return nil, err
	}
	var structured bytes.Buffer
	json.HTMLEscape(&structured, body)
	return &encodedOutput{quotedText: wire.AppendJSONString(nil, string(body), wire.AsMarshal), structured: structured.Bytes()}, nil
}

// appendText appends the text's string literal.
func (o output) appendText(dst []byte) []byte {
	if o.search == nil {
		return append(dst, o.quotedText...)
	}
	return append(o.t.appendSearch(append(dst, '"'), o.search, false), '"')
}

// appendStructured appends the structured content.
func (o output) appendStructured(dst []byte) []byte {
	if o.search == nil {
		return append(dst, o.structured...)
	}
	return o.t.appendSearch(dst, o.search, true)
}

// sdkResult is the output as the SDK sends it.
func (o output) sdkResult() *sdk.CallToolResult {
	var text string
	json.Unmarshal(o.appendText(nil), &text) // a string literal wire.AppendJSONString made
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: text}},
		StructuredContent: json.RawMessage(o.appendStructured(nil)),
		IsError:           o.isError,
	}
}

// appendResult appends the CallToolResult that carries the output, as
// the SDK encodes it, to dst: from 2026-07-28 (serverInfo set) with the
// server's info in _meta and its resultType.
func (o output) appendResult(dst []byte, serverInfo json.RawMessage) []byte {
	dst = append(dst, '{')
	if serverInfo != nil {
		dst = append(dst, `"_meta":{"io.modelcontextprotocol/serverInfo":`...)
		dst = append(append(dst, serverInfo...), "},"...)
	}
	dst = append(dst, `"content":[{"type":"text","text":`...)
	dst = o.appendText(dst)
	dst = append(dst, `}],"structuredContent":`...)
	dst = o.appendStructured(dst)
	if o.isError {
		dst = append(dst, `,"isError":true`...)
	}
	if serverInfo != nil {
		dst = append(dst, `,"resultType":"complete"`...)
	}
	return append(dst, '}')
}

// searchOutput is a search's answer. It is encoded from cached item
// encodings (encodeItem): the full items as structured content, and as
// text the lean items a model needs to choose a server and ask for its
// detail, since a model pays for every byte of text.
type searchOutput struct {
	hits     []mcpdir.Hit
	items    [][]byte // the hits' encodings (encodeItem), once looked up
	total    int
	keywords string
	limit    int
	notice   string
}

// leanItem is a search item as the text content carries it: its title,
// where the record has one ("Gmail"), beside its name.
type leanItem struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Title      string   `json:"title,omitempty"`
	Brief      string   `json:"brief"`
	WebsiteURL string   `json:"website_url"`
	Transports []string `json:"transports"`
}

// encodeItem is an entry's search item as an answer carries it twice: the
// length of the lean item (uvarint), the lean item's JSON escaped to sit in
// the text's string literal, then the full item up to its score
// (wire.EncodeSearchItemHead). itemParts splits it.
func encodeItem(e *mcpdir.Entry) []byte {
	it := wire.NewSearchItem(mcpdir.Hit{Entry: e})
	b, _ := wire.MarshalPlain(leanItem{ID: it.ID, Name: it.Name, Title: it.Title, Brief: it.Brief, WebsiteURL: it.WebsiteURL, Transports: it.Transports})
	lean := wire.AppendJSONEscaped(nil, string(b), wire.AsMarshal)
	return append(append(binary.AppendUvarint(nil, uint64(len(lean))), lean...), wire.EncodeSearchItemHead(e)...)
}

// itemParts splits encodeItem's encoding into its lean and full items.
func itemParts(enc []byte) (lean, full []byte) {
	n, k := binary.Uvarint(enc)
	return enc[k : k+int(n)], enc[k+int(n):]
}

// appendSearch appends a search's answer, {success, data, count, total,
// keywords, limit, notice?}, from cached item encodings: as structured
// content, the full items as encoding/json writes them (the SDK's
// encoding); else as the inside of the text's literal, the lean items (a
// model pays for every byte of text) as marshal writes them, escaped as
// encoding/json escapes a string (the lean items are cached escaped).
func (t *tools) appendSearch(dst []byte, o *searchOutput, structured bool) []byte {
	// lit appends JSON punctuation and names, escaped inside the text's
	// literal; numbers need no escaping.
	lit := func(dst []byte, s string) []byte {
		if structured {
			return append(dst, s...)
		}
		return wire.AppendJSONEscaped(dst, s, wire.AsMarshal)
	}
	str := func(dst []byte, s string) []byte {
		if structured {
			return wire.AppendJSONString(dst, s, wire.AsMarshal)
		}
		return wire.AppendJSONEscaped(dst, string(wire.AppendJSONString(nil, s, wire.AsMarshalPlain)), wire.AsMarshal)
	}
	dst = lit(dst, `{"success":true,"data":[`)
	if o.items == nil && len(o.hits) > 0 { // the text and the structured content look them up once
		o.items = t.items.Lookup(make([][]byte, 0, len(o.hits)), o.hits)
	}
	for i, enc := range o.items {
		if i > 0 {
			dst = append(dst, ',')
		}
		lean, full := itemParts(enc)
		if !structured {
			dst = append(dst, lean...)
			continue
		}
		dst = wire.AppendItemScore(append(dst, full...), o.hits[i])
	}
	dst = lit(dst, `],"count":`)
	dst = strconv.AppendInt(dst, int64(len(o.hits)), 10)
	dst = lit(dst, `,"total":`)
	dst = strconv.AppendInt(dst, int64(o.total), 10)
	dst = lit(dst, `,"keywords":`)
	dst = str(dst, o.keywords)
	dst = lit(dst, `,"limit":`)
	dst = strconv.AppendInt(dst, int64(o.limit), 10)
	if o.notice != "" {
		dst = lit(dst, `,"notice":`)
		dst = str(dst, o.notice)
	}
	return lit(dst, `}`)
}
