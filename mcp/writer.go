package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
)

// sdkWriter stands between the SDK's handlers and the client's response. It
//   - turns the SDK's plain-text error responses into JSON-RPC error bodies;
//   - answers as application/json a POST whose client does not accept
//     text/event-stream, by collecting the SDK's SSE answer;
//   - serializes writes, so that keep-alive comments can be written between
//     the SDK's events on a long-lived stream;
//   - tells its owner the status and headers just before they are sent, so
//     that a new session is known before its client can use it and the
//     rate-limit headers of the calls are set;
//   - puts back the ids the SDK was given stand-ins for (ids.go);
//   - bounds the answer to a POST (limit).
//
// The SDK writes from its session goroutines while its handler waits, and
// never after its ServeHTTP returns; finish must be called after that.
type sdkWriter struct {
	w http.ResponseWriter

	// Set before use.
	id       json.RawMessage                 // request id for error bodies
	toJSON   bool                            // collect SSE into one JSON answer
	batch    bool                            // the request was a batch: answer an array
	onHeader func(status int, h http.Header) // called once, before the header is sent
	onData   func(p []byte)                  // sees every byte passed through
	limit    int                             // most bytes of an answer to a POST; 0: none (streams)

	mu      sync.Mutex
	status  int
	mode    writerMode
	buf     bytes.Buffer // the captured error text or SSE answer
	sent    bool         // the header has gone to the client
	stopped bool         // the SDK's handler has returned
	written int          // bytes passed through
}

// errFinished is what a write after the response was completed gets.
var errFinished = errors.New("mcp: the response is already finished")

// errTooLarge is what a write past the answer's bound gets.
var errTooLarge = errors.New("mcp: the answer is larger than its bound")

// MaxAnswerBytes bounds the answer to one POST. Records are bounded at
// import (256 KiB each) and a batch holds at most MaxBatch messages, so only
// a pathological batch comes near it; past it the answer is an error.
const MaxAnswerBytes = 8 << 20

type writerMode int

const (
	passThrough writerMode = iota
	captureError
	collectSSE
)

func newSDKWriter(w http.ResponseWriter) *sdkWriter { return &sdkWriter{w: w} }

func (s *sdkWriter) Header() http.Header { return s.w.Header() }

func (s *sdkWriter) WriteHeader(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeHeaderLocked(status)
}

func (s *sdkWriter) writeHeaderLocked(status int) {
	if s.status != 0 || s.stopped {
		return
	}
	s.status = status
	ct := s.w.Header().Get("Content-Type")
	switch {
	case status >= 400 && strings.HasPrefix(ct, "text/plain"):
		s.mode = captureError
	case s.toJSON && status == http.StatusOK && strings.HasPrefix(ct, "text/event-stream"):
		s.mode = collectSSE
	default:
		if s.onHeader != nil {
			s.onHeader(status, s.w.Header())
		}
		s.w.WriteHeader(status)
		s.sent = true
	}
}

func (s *sdkWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return 0, errFinished
	}
	s.writeHeaderLocked(http.StatusOK)
	if s.limit > 0 && s.written+s.buf.Len()+len(p) > s.limit {
		s.buf.Reset()
		s.mode = passThrough // nothing more is collected or passed on
		s.stopped = true
		return 0, errTooLarge
	}
	if s.mode != passThrough {
		return s.buf.Write(p)
	}
	if s.onData != nil {
		s.onData(p)
	}
	n, err := s.w.Write(restoreIDs(p))
	s.written += n
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush passes the SDK's flushes on, except while collecting.
func (s *sdkWriter) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sent && !s.stopped {
		http.NewResponseController(s.w).Flush()
	}
}

// statusCode is the status the SDK answered with (0 if none yet).
func (s *sdkWriter) statusCode() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// comment writes an SSE comment on an open event stream and flushes it: a
// keep-alive that proxies and clients see as traffic and ignore.
func (s *sdkWriter) comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sent || s.stopped || !strings.HasPrefix(s.w.Header().Get("Content-Type"), "text/event-stream") {
		return nil
	}
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		return err
	}
	return http.NewResponseController(s.w).Flush()
}

// keepAlive writes a comment every interval until stop is closed.
func (s *sdkWriter) keepAlive(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if s.comment("keep-alive") != nil {
				return
			}
		}
	}
}

// finish completes the response once the SDK's handler has returned: it
// writes the JSON-RPC form of a captured error, or the collected answer.
func (s *sdkWriter) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped && s.limit > 0 && s.written == 0 && !s.sent {
		// Cut off at the bound before anything went out.
		writeRPCError(s.w, http.StatusInternalServerError, s.id, rpcError{Code: codeInternal,
			Message: fmt.Sprintf("the answer is larger than %d bytes: ask for fewer results or send fewer messages per POST", s.limit),
			Data:    rpcData{Code: dataAnswerTooLarge}})
		return
	}
	s.stopped = true
	switch s.mode {
	case captureError:
		writeRPCError(s.w, s.status, s.id, sdkError(s.status, s.buf.String()))
	case collectSSE:
		body, ok := sseToJSON(s.buf.Bytes(), s.batch)
		if !ok {
			writeRPCError(s.w, http.StatusInternalServerError, s.id, rpcError{
				Code: codeInternal, Message: "internal error", Data: rpcData{Code: mcpdir.ECodeInternal},
			})
			return
		}
		h := s.w.Header()
		h.Set("Content-Type", "application/json")
		h.Del("Connection")
		if s.onHeader != nil {
			s.onHeader(http.StatusOK, h)
		}
		s.w.WriteHeader(http.StatusOK)
		s.w.Write(restoreIDs(body))
	}
}

// sdkError is the JSON-RPC form of a plain-text error the SDK answered. The
// SDK's 4xx texts describe the client's mistake and are kept; a 5xx text
// could describe internals and is not.
func sdkError(status int, text string) rpcError {
	text = strings.TrimSpace(text)
	e := rpcError{Code: codeTransport, Message: text, Data: rpcData{Code: mcpdir.ECodeInvalidRequest}}
	switch status {
	case http.StatusNotFound:
		e.Code, e.Data.Code = codeSessionNotFound, dataSessionNotFound
		e.Message = "session not found: it ended or expired; start a new one with initialize"
	case http.StatusForbidden:
		e.Code, e.Data.Code = codeForbidden, mcpdir.ECodeForbidden
	case http.StatusMethodNotAllowed:
		e.Data.Code = mcpdir.ECodeMethodNotAllowed
	case http.StatusConflict:
		e.Data.Code = dataStreamConflict
	case http.StatusRequestEntityTooLarge:
		e.Data.Code = mcpdir.ECodeTooLarge
	case http.StatusUnsupportedMediaType:
		e.Data.Code = dataUnsupportedMedia
	}
	if status >= 500 {
		e = rpcError{Code: codeInternal, Message: "internal error", Data: rpcData{Code: mcpdir.ECodeInternal}}
	}
	return e
}

// sseToJSON turns the SSE answer to a POST into its JSON form: the response
// to the request, or an array of them for a batch. Notifications sent on the
// way are dropped: a JSON answer has no room for them.
func sseToJSON(stream []byte, batch bool) ([]byte, bool) {
	var responses []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, len(stream)+1)
	var data bytes.Buffer
	event := ""
	flush := func() {
		if data.Len() > 0 && (event == "" || event == "message") && isResponse(data.Bytes()) {
			responses = append(responses, json.RawMessage(bytes.Clone(data.Bytes())))
		}
		data.Reset()
		event = ""
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	if len(responses) == 0 {
		return nil, false
	}
	if !batch && len(responses) == 1 {
		return responses[0], true
	}
	body, err := json.Marshal(responses)
	return body, err == nil
}

func isResponse(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(data, &m) == nil && m.Method == "" && len(m.ID) > 0
}
