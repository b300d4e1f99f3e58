package livecheck

import (
	"slices"
	"testing"
)

func TestSupportedVersions(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"JSON", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{}}}`, []string{"2026-07-28", "2025-11-25"}},
		{"event stream", "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{\"supportedVersions\":[\"2026-07-28\"]}}\r\n\r\n", []string{"2026-07-28"}},
		{"a comment, then the answer", ": hello\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"supportedVersions\":[\"2026-07-28\"]}}", []string{"2026-07-28"}},
		{"turned down", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}}`, []string{"2025-06-18"}},
		{"method not found", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`, nil},
		{"plain text", "Bad Request: Unsupported protocol version", nil},
		{"cut short", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"`, nil},
		{"empty", "", nil},
	} {
		if got := supportedVersions([]byte(c.body)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
