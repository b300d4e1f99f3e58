package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// Ids come back exactly as sent (spec §2.3), on every path: the fast path,
// the SDK's stateless handler, a session, and for other methods.
func TestIDsEchoedExactly(t *testing.T) {
	e := newEnv(t, nil)
	sid := e.initialize(keyUnlimited, "2025-06-18")
	ids := []string{`1.5`, `12345678901234567890`, `-9007199254740993`, `1e3`, `-0`, `0.0`, `"x"`, `"` + idMarker + `3132"`, `7`, `""`}
	for _, id := range ids {
		call := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"sql"}}}`
		ping := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`
		for name, c := range map[string]struct {
			h    hdr
			body string
		}{
			"fast path":     {jsonHeaders(keyUnlimited, hdr{"Accept": "application/json"}), call},
			"SDK stateless": {jsonHeaders(keyUnlimited, hdr{"Accept": "text/event-stream"}), call},
			"SDK as JSON":   {jsonHeaders(keyUnlimited, hdr{"Accept": "application/json"}), ping},
			"session":       {sessionHeaders(keyUnlimited, sid, "2025-06-18"), call},
			"session JSON":  {sessionHeaders(keyUnlimited, sid, "2025-06-18"), ping},
		} {
			r := readRPC(t, e.post(c.h, c.body), http.StatusOK)
			if string(r.ID) != id || r.Error != nil {
				t.Errorf("%s: id %s came back as %s (error %+v)", name, id, r.ID, r.Error)
			}
		}
	}
}

func TestRestoreIDs(t *testing.T) {
	for _, id := range []string{`1.5`, `"` + idMarker + `zz"`, `123456789012345678901234567890`} {
		stand, changed := standIn(json.RawMessage(id))
		if !changed {
			t.Fatalf("%s: no stand-in", id)
		}
		in := []byte(`data: {"id":` + string(stand) + `,"result":{}}` + "\n")
		if got := string(restoreIDs(in)); got != `data: {"id":`+id+`,"result":{}}`+"\n" {
			t.Errorf("%s: restored %s", id, got)
		}
	}
	// Text that merely looks like a stand-in is left alone.
	for _, s := range []string{`"` + idMarker + `not hex"`, `"` + idMarker} {
		if got := string(restoreIDs([]byte(s))); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
}

// A batch over the cap is one JSON-RPC error, and spends nothing.
func TestBatchBound(t *testing.T) {
	e := newEnv(t, nil)
	msgs := make([]string, MaxBatch+1)
	for i := range msgs {
		msgs[i] = toolCall(i+1, toolSearch, `{"keywords":"sql"}`)
	}
	h := jsonHeaders(keyUnlimited, hdr{"Mcp-Protocol-Version": "2025-03-26"})
	before := e.guard.spent()
	r := wantRPCError(t, e.post(h, "["+strings.Join(msgs, ",")+"]"), http.StatusBadRequest, codeInvalidRequest, mcpdir.ECodeInvalidRequest)
	if !strings.Contains(r.Error.Message, fmt.Sprint(MaxBatch)) || e.guard.spent() != before {
		t.Errorf("%s; spent %d", r.Error.Message, e.guard.spent()-before)
	}
	// At the cap, every message is answered.
	resp := e.post(h, "["+strings.Join(msgs[:MaxBatch], ",")+"]")
	body, _ := io.ReadAll(resp.Body)
	var answers []rpcResp
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		for _, ev := range parseSSE(string(body)) {
			var r rpcResp
			if json.Unmarshal([]byte(ev.data), &r) == nil && r.ID != nil {
				answers = append(answers, r)
			}
		}
	} else {
		json.Unmarshal(body, &answers)
	}
	if len(answers) != MaxBatch {
		t.Errorf("%d answers to a batch of %d: %.300s", len(answers), MaxBatch, body)
	}
}

// The bound on an answer: past it, the client gets an error, not a
// truncated or endless body.
func TestAnswerBound(t *testing.T) {
	var out bytes.Buffer
	w := &recorder{header: http.Header{}, body: &out}
	sw := newSDKWriter(w)
	sw.limit, sw.toJSON, sw.id = 100, true, json.RawMessage("3")
	sw.Header().Set("Content-Type", "text/event-stream")
	sw.WriteHeader(http.StatusOK)
	if _, err := sw.Write(bytes.Repeat([]byte("x"), 101)); err == nil {
		t.Error("a write past the bound succeeded")
	}
	sw.finish()
	var r rpcResp
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || r.Error == nil || r.Error.Data.Code != dataAnswerTooLarge || string(r.ID) != "3" {
		t.Errorf("answer %d %s", w.status, out.Bytes())
	}
}

type recorder struct {
	header http.Header
	body   *bytes.Buffer
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(s int)           { r.status = s }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }

// panickingIndex stands for a bug in search.
type panickingIndex struct{ *testIndex }

func (panickingIndex) Find(mcpdir.Query) mcpdir.SearchResult { panic("index corrupted at /secret") }

// A tool that panics answers a JSON-RPC internal error for that call, on
// the fast path and through the SDK, logs the stack, and the server lives.
func TestToolPanic(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, func(c *Config) {
		c.Index = panickingIndex{newTestIndex()}
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	call := toolCall(1, toolSearch, `{"keywords":"sql"}`)
	for _, accept := range []string{"application/json", "text/event-stream"} {
		r := readRPC(t, e.post(jsonHeaders(keyUnlimited, hdr{"Accept": accept}), call), http.StatusOK)
		if r.Error == nil || r.Error.Code != codeInternal || strings.Contains(r.Error.Message, "secret") {
			t.Errorf("%s: %+v", accept, r.Error)
		}
	}
	if !strings.Contains(logs.String(), "index corrupted") || !strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic and its stack were not logged: %.500s", logs.String())
	}
	// Still serving.
	r := readRPC(t, e.post(jsonHeaders(keyUnlimited, nil), toolCall(2, toolDetail, `{"mcp_id":"`+e.index.entries[0].ID+`"}`)), http.StatusOK)
	if r.Error != nil {
		t.Errorf("after the panic: %+v", r.Error)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Only a call that reaches a directory tool spends: header mismatches,
// invalid _meta, unknown tools, bad requests and everything else are free.
func TestOnlyToolCallsSpend(t *testing.T) {
	e := newEnv(t, nil)
	search := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"sql"},` + modernMeta + `}}`
	noCaps := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"sql"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	for name, c := range map[string]struct {
		method string
		h      hdr
		body   string
	}{
		"-32020 Mcp-Name mismatch":  {http.MethodPost, modernHeaders(keyA, "tools/call", toolDetail), search},
		"-32020 Mcp-Method":         {http.MethodPost, modernHeaders(keyA, "tools/list", ""), search},
		"2026 without capabilities": {http.MethodPost, modernHeaders(keyA, "tools/call", toolSearch), noCaps},
		"unknown tool":              {http.MethodPost, jsonHeaders(keyA, nil), toolCall(1, "nope", `{}`)},
		"tools/list":                {http.MethodPost, jsonHeaders(keyA, nil), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		"not JSON":                  {http.MethodPost, jsonHeaders(keyA, nil), `{"jsonrpc":`},
		"HEAD":                      {http.MethodHead, jsonHeaders(keyA, nil), ""},
		"GET without a session":     {http.MethodGet, hdr{"Authorization": keyA, "Accept": "application/json"}, ""},
	} {
		before := e.guard.spent()
		resp := e.do(c.method, e.url, c.h, c.body)
		io.Copy(io.Discard, resp.Body)
		if spent := e.guard.spent() - before; spent != 0 || resp.StatusCode == http.StatusOK && c.method != http.MethodPost {
			t.Errorf("%s: status %d, spent %d", name, resp.StatusCode, spent)
		}
	}
	// And the call that runs spends once.
	before := e.guard.spent()
	readRPC(t, e.post(modernHeaders(keyA, "tools/call", toolSearch), search), http.StatusOK)
	if spent := e.guard.spent() - before; spent != 1 {
		t.Errorf("a 2026-07-28 call spent %d", spent)
	}
}

// panickingGuard stands for a bug under the request, outside any tool.
type panickingGuard struct{ *testGuard }

func (panickingGuard) Authenticate(context.Context, string) (*mcpdir.APIKey, error) {
	panic("guard broken at /secret")
}

// A panic anywhere under an MCP request answers a JSON-RPC internal error
// (500), and the stack goes to the log.
func TestRequestPanic(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, func(c *Config) {
		c.Guard = panickingGuard{newTestGuard()}
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	r := wantRPCError(t, e.post(jsonHeaders(keyA, nil), toolCall(1, toolSearch, `{"keywords":"sql"}`)), http.StatusInternalServerError, codeInternal, mcpdir.ECodeInternal)
	if strings.Contains(r.Error.Message, "secret") || !strings.Contains(logs.String(), "guard broken") {
		t.Errorf("%+v; log %.300s", r.Error, logs.String())
	}
}

// Any POST body: parsing answers a JSON-RPC error or messages the SDK can
// take; re-encoded with stand-in ids, each message gives back its id.
func FuzzParseBody(f *testing.F) {
	for _, s := range []string{
		toolCall(1, toolSearch, `{"keywords":"sql"}`),
		`[{"jsonrpc":"2.0","id":1.5,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`, `{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/list"}`,
		`[]`, `{}`, `null`, `{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"jsonrpc":"2.0","method":"tools/call","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"a"} x`, "\xef\xbb\xbf{}", `{"jsonrpc":"2.0","id":"` + idMarker + `41","method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, perr := parseBody(body)
		if perr != nil {
			if perr.resp < 400 || perr.err.Code >= 0 {
				t.Fatalf("bad refusal %+v", perr)
			}
			return
		}
		if len(msgs) == 0 || len(msgs) > MaxBatch || !batch && len(msgs) != 1 {
			t.Fatalf("%d messages, batch %v", len(msgs), batch)
		}
		out, err := encodeBody(msgs, batch)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, _, perr := parseBody(out)
		if perr != nil || len(again) != len(msgs) {
			t.Fatalf("the re-encoded body %s does not parse: %+v", out, perr)
		}
		for i, m := range msgs {
			if m.id == nil {
				continue
			}
			if !exactInSDK(again[i].fields["id"]) && !bytes.HasPrefix(again[i].fields["id"], quotedMarker) {
				t.Fatalf("id %s reaches the SDK as %s", m.id, again[i].fields["id"])
			}
			if got := restoreIDs(msgs[i].fields["id"]); !bytes.Equal(got, m.id) {
				t.Fatalf("id %s restored as %s", m.id, got)
			}
		}
	})
}

// decodeObject decodes what json.Unmarshal into a map of raw members
// decodes, for any valid JSON.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}], "d":"x\"}" } `, `{"a":1,"a":2}`, `[1]`, `"s"`, `null`, `{"\u0061":1}`,
		`{"é":true}`, `{"a":{"b":{}},"c":-1.5e3,"d":null,"e":false}`, "{\"k\":\"\\\\\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(raw, &want)
		got, err := decodeObject(raw)
		if (err != nil) != (wantErr != nil || want == nil) {
			t.Fatalf("%s: error %v, encoding/json %v", raw, err, wantErr)
		}
		if err == nil && !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Fatalf("%s: %q, encoding/json %q", raw, got, want)
		}
	})
}

// validJSON accepts exactly what json.Valid accepts.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{``, ` `, `{}`, `[]`, `{"a":[1,2,{"b":null}],"c":"\u00e9\n"}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`,
		`"\x"`, `"\u12g4"`, `"\u123"`, "\"\x01\"", "\"\xff\"", `-`, `-0`, `01`, `1.`, `1.5e`, `1.5e+3`, `-1E-0`, `.5`, `tru`, `truex`, `null null`,
		`[[[]]]`, `[[]`, `{"a":{}`, `[1 2]`, `"a" `, "\t[\r\n]\n", `{"a":1}}`, `]`, strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("%q: validJSON %v, json.Valid %v", data, got, want)
		}
	})
}
