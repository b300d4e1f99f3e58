package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer is the real server started through run, as a user starts it.
type testServer struct {
	URL     string
	DataDir string
	stderr  *syncBuffer
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

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs `mcpdir serve` on a fresh data directory (or dataDir)
// and waits until it is ready. The server is shut down at the end of the
// test, and must stop cleanly.
func startServer(t *testing.T, dataDir string, extra ...string) *testServer {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	args := append([]string{"mcpdir", "serve", "--addr", addr, "--data-dir", dataDir, "--feed-interval", "100ms"}, extra...)
	go func() { done <- run(ctx, args, noEnv, nil, io.Discard, stderr) }()
	s := &testServer{URL: "http://" + addr, DataDir: dataDir, stderr: stderr}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server did not stop cleanly: %v\n%s", err, stderr)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("server did not stop within 20s")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("server exited: %v\n%s", err, stderr)
		default:
		}
		if resp, err := http.Get(s.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server not ready after 30s\n%s", stderr)
	return nil
}

func noEnv(string) string { return "" }

// cli runs a CLI command against dataDir and returns its stdout.
func cli(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	full := append(append([]string{"mcpdir"}, args...), "--data-dir", dataDir)
	if err := run(context.Background(), full, noEnv, nil, &stdout, &stderr); err != nil {
		t.Fatalf("mcpdir %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

// newKey makes a key with the CLI and returns the secret.
func newKey(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	out := cli(t, dataDir, append([]string{"keys", "create", "--name", "test"}, args...)...)
	key, _, _ := strings.Cut(out, "\n")
	return key
}

type searchBody struct {
	Data []struct {
		ID         string   `json:"id"`
		Name       string   `json:"name"`
		Brief      string   `json:"brief"`
		WebsiteURL string   `json:"website_url"`
		Tags       []string `json:"tags"`
		Score      float64  `json:"score"`
	} `json:"data"`
	Count int `json:"count"`
	Total int `json:"total"`
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func get(t *testing.T, url, authorization string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func decode[T any](t *testing.T, resp *http.Response) T {
	t.Helper()
	defer resp.Body.Close()
	var v T
	body, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q for %s", ct, body)
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return v
}

func (s *testServer) search(t *testing.T, key, keywords string) searchBody {
	t.Helper()
	resp := get(t, s.URL+"/api/open/v1/search?keywords="+urlQueryEscape(keywords), "Bearer "+key)
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("search %q: %d %s", keywords, resp.StatusCode, body)
	}
	return decode[searchBody](t, resp)
}

func urlQueryEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, "%", "%25"), " ", "+"), "&", "%26")
}

// moduleRoot is the directory holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// writeLines writes NDJSON records to a file in the test's temp dir.
func writeLines(t *testing.T, records ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "entries.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(records, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v", what, within)
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n
}
