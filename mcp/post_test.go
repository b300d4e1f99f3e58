package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/starter"
)

// The sessionless fast path answers exactly what the SDK answers for the
// same call: every tool, success and failure.
func TestFastPathMatchesSDK(t *testing.T) {
	e := newEnv(t, nil)
	calls := []string{
		toolCall(1, toolSearch, `{"keywords":"sql"}`),
		toolCall(2, toolSearch, `{"keywords":"filler","limit":3}`),
		toolCall(3, toolSearch, `{"keywords":"filler","limit":0}`),
		toolCall(4, toolSearch, `{"keywords":"zzzz nothing"}`),
		toolCall(5, toolSearch, `{"keywords":"a\u001bb"}`),
		toolCall(6, toolSearch, `{}`),
		toolCall(7, toolDetail, `{"mcp_id":"`+e.index.entries[0].ID+`"}`),
		toolCall(8, toolDetail, `{"mcp_id":"nope"}`),
		toolCall(9, toolSearch, `{"keywords":"<script>&\"quoted\" é"}`),
	}
	for _, body := range calls {
		direct := readRPC(t, e.post(jsonHeaders(keyUnlimited, hdr{"Mcp-Protocol-Version": "2025-06-18"}), body), http.StatusOK)
		// Accepting only event streams takes the SDK's stateless handler.
		resp := e.post(jsonHeaders(keyUnlimited, hdr{"Mcp-Protocol-Version": "2025-06-18", "Accept": "text/event-stream"}), body)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("the SDK path answered %s", ct)
		}
		raw, _ := io.ReadAll(resp.Body)
		events := parseSSE(string(raw))
		if len(events) != 1 {
			t.Fatalf("SDK answer: %s", raw)
		}
		var viaSDK rpcResp
		json.Unmarshal([]byte(events[0].data), &viaSDK)
		var a, b any
		json.Unmarshal(direct.Result, &a)
		json.Unmarshal(viaSDK.Result, &b)
		if !reflect.DeepEqual(a, b) || string(direct.ID) != string(viaSDK.ID) || a == nil {
			t.Errorf("%s:\n direct %s %s\n    SDK %s %s", body, direct.ID, direct.Result, viaSDK.ID, viaSDK.Result)
		}
	}
}

// BenchmarkToolsCall compares, in one run, a sessionless search_mcp call
// through the SDK's stateless handler (a session connected, served and
// closed per request) with the fast path, over the starter directory.
func BenchmarkToolsCall(b *testing.B) {
	idx := search.New()
	entries, err := starter.Entries()
	if err != nil {
		b.Fatal(err)
	}
	idx.Upsert(entries...)
	h, err := NewHandler(Config{Index: idx, Guard: newTestGuard()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"database"}}}`)
	for _, c := range []struct{ name, accept string }{{"sdk", "text/event-stream"}, {"direct", "application/json"}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/api/open/mcp", bytes.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+keyUnlimited)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", c.accept)
				r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"success\":true`) {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
