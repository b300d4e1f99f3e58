package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// closedWithin reports how long the server took to close conn (reading
// whatever it answers first), or fails after limit.
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	conn.SetReadDeadline(start.Add(limit))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server held the connection for %v", limit)
	}
	return time.Since(start)
}

// Slow clients are cut off: headers trickled past the header timeout, a
// body trickled past the request timeout, a keep-alive connection left
// idle. An event stream outlives the request timeout and keeps working.
// The timeouts are the flags' (defaults 10 s, 60 s, 60 s), shortened here.
func TestSlowClientsAreCutOff(t *testing.T) {
	s := startServer(t, "", "--header-timeout", "500ms", "--request-timeout", "1s", "--idle-timeout", "500ms")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	addr := strings.TrimPrefix(s.URL, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// trickle writes one byte of s every interval until the server closes.
	trickle := func(c net.Conn, s string) {
		go func() {
			for i := 0; i < len(s); i++ {
				if _, err := c.Write([]byte{s[i]}); err != nil {
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}

	t.Run("headers", func(t *testing.T) {
		c := dial()
		trickle(c, "GET /api/open/v1/search?keywords=git HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key+"\r\n\r\n")
		if d := closedWithin(t, c, 5*time.Second); d > 3*time.Second {
			t.Errorf("closed after %v", d)
		}
	})
	t.Run("body", func(t *testing.T) {
		c := dial()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"github"}}}`
		io.WriteString(c, "POST /api/open/mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key+
			"\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: "+itoa(len(body))+"\r\n\r\n")
		trickle(c, body)
		if d := closedWithin(t, c, 6*time.Second); d > 4*time.Second {
			t.Errorf("closed after %v", d)
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		if d := closedWithin(t, c, 5*time.Second); d > 3*time.Second {
			t.Errorf("closed after %v", d)
		}
	})
	t.Run("event stream outlives the request timeout", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/open/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET stream: %v", err)
		}
		defer resp.Body.Close()
		events := bufio.NewReader(resp.Body)
		var endpoint string
		for endpoint == "" {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
				endpoint = data
			}
		}
		time.Sleep(2500 * time.Millisecond) // past the request timeout
		post, _ := http.NewRequest(http.MethodPost, s.URL+endpoint, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		post.Header.Set("Authorization", "Bearer "+key)
		post.Header.Set("Content-Type", "application/json")
		presp, err := http.DefaultClient.Do(post)
		if err != nil || presp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST to the stream's endpoint after 2.5 s: %v %v", err, presp)
		}
		presp.Body.Close()
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("the stream ended: %v", err)
			}
			if strings.Contains(line, `"protocolVersion"`) {
				return
			}
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
