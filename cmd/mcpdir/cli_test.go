package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/auth"
	"github.com/mcpdir/mcpdir/sqlite"
)

func TestKeysCreatePrintsKeyAndClientConfiguration(t *testing.T) {
	dir := t.TempDir()
	out := cli(t, dir, "keys", "create", "--name", "laptop", "--expires", "90d", "--scope", "search")
	key, rest, _ := strings.Cut(out, "\n")
	if !regexp.MustCompile(`^mcpd_[0-9A-Za-z]{33}$`).MatchString(key) {
		t.Fatalf("first line is not a key: %q", key)
	}
	var cfg struct {
		MCPServers map[string]struct {
			URL          string            `json:"url"`
			Transport    string            `json:"transport"`
			Headers      map[string]string `json:"headers"`
			Capabilities map[string]bool   `json:"capabilities"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(rest[strings.Index(rest, "{"):]), &cfg); err != nil {
		t.Fatalf("configuration is not JSON: %v\n%s", err, rest)
	}
	c := cfg.MCPServers["mcpdir"]
	if c.URL != "http://127.0.0.1:8080/api/open/mcp" || c.Transport != "http" || c.Headers["Authorization"] != "Bearer "+key ||
		c.Headers["Content-Type"] != "application/json" || !c.Capabilities["tools"] {
		t.Fatalf("configuration: %+v", c)
	}
	list := cli(t, dir, "keys", "list")
	if !strings.Contains(list, key[:13]) || !strings.Contains(list, "laptop") || strings.Contains(list, key) {
		t.Fatalf("keys list must show the prefix and name, never the key:\n%s", list)
	}
	// Only a hash of the key is stored.
	raw, _ := os.ReadFile(filepath.Join(dir, sqlite.FileName))
	wal, _ := os.ReadFile(filepath.Join(dir, sqlite.FileName+"-wal"))
	if strings.Contains(string(raw)+string(wal), key) {
		t.Fatal("the key itself is in the database")
	}
}

func TestKeysCreateRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"keys", "create"},
		{"keys", "create", "--name", "x", "--expires", "soon"},
		{"keys", "create", "--name", "x", "--rate-limit", "0"},
		{"keys", "create", "--name", "x", "--scope", "root"},
		{"keys", "revoke"},
		{"bogus"},
	} {
		err := run(context.Background(), append(append([]string{"mcpdir"}, args...), "--data-dir", t.TempDir()), noEnv, nil, &strings.Builder{}, &strings.Builder{})
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
	}
}

func TestImportKeepsEverythingAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	file := writeLines(t,
		`{"name": "alpha-mcp", "title": "Alpha Things", "brief": "Alpha things", "website_url": "https://example.com/alpha", "registry": "npm", "downloads": 10, "stars": 5}`,
		`{"name": "beta-mcp", "description": "Beta things for agents", "website_url": "https://example.com/beta"}`,
		``,
		`{"name": "", "brief": "nameless"}`,
		`not json`,
		`{"name": "gamma", "website_url": "ftp://example.com/gamma"}`,
		`{"name": "huge", "brief": "`+strings.Repeat("x", 300_000)+`"}`,
	)
	out := cli(t, dir, "import", file)
	if !strings.Contains(out, "2 added, 0 updated, 0 unchanged, 4 skipped") {
		t.Fatalf("summary: %s", out)
	}
	for _, reason := range []string{"missing name (lines 4)", "invalid JSON (lines 5)", "invalid URL (lines 6)", "record too large (lines 7)"} {
		if !strings.Contains(out, reason) {
			t.Errorf("summary lacks %q:\n%s", reason, out)
		}
	}
	out = cli(t, dir, "import", file)
	if !strings.Contains(out, "0 added, 0 updated, 2 unchanged") {
		t.Fatalf("second import changed something: %s", out)
	}
	res := cli(t, dir, "search", "alpha")
	if !strings.Contains(res, "alpha-mcp") || !strings.Contains(res, "Alpha Things") {
		t.Fatalf("search after import, by its title and its name:\n%s", res)
	}
}

// The import's traps each become a clear skip with its line number, or
// (a byte order mark) simply work; importing the file again changes
// nothing, duplicates included.
func TestImportRefusesWhatWouldBeLostOrUnsafe(t *testing.T) {
	dir := t.TempDir()
	file := writeLines(t,
		"\xef\xbb\xbf"+`{"name": "bom-first", "website_url": "https://example.com/bom"}`,
		`{"name": "one", "website_url": "https://example.com/one"}{"name": "two", "website_url": "https://example.com/two"}`,
		`{"name": "garbage-after", "website_url": "https://example.com/g"} trailing`,
		`{"name": "js-remote", "remotes": [{"type": "sse", "url": "javascript:alert(1)"}]}`,
		`{"name": "creds", "remotes": [{"type": "sse", "url": "https://user:secret@example.com/sse"}]}`,
		`{"name": "dup-first", "brief": "first", "website_url": "https://example.com/dup"}`,
		`{"name": "dup-second", "brief": "second", "website_url": "https://example.com/dup/"}`,
		`{"name": "ok", "website_url": "https://example.com/ok"}`,
	)
	out := cli(t, dir, "import", file)
	if !strings.Contains(out, "3 added, 0 updated, 0 unchanged, 5 skipped") {
		t.Fatalf("summary: %s", out)
	}
	for _, reason := range []string{"data after the record (lines 2, 3)", "invalid URL (lines 4, 5)", "duplicate of an earlier line", "(lines 7)"} {
		if !strings.Contains(out, reason) {
			t.Errorf("summary lacks %q:\n%s", reason, out)
		}
	}
	if strings.Contains(out, "secret") {
		t.Errorf("the summary echoes a credential:\n%s", out)
	}
	for range 2 {
		if again := cli(t, dir, "import", file); !strings.Contains(again, "0 added, 0 updated, 3 unchanged, 5 skipped") {
			t.Fatalf("importing again changed something: %s", again)
		}
	}
	if res := cli(t, dir, "search", "dup"); !strings.Contains(res, "dup-first") || strings.Contains(res, "dup-second") {
		t.Errorf("the first of two duplicates is kept:\n%s", res)
	}
}

// What the directory holds reaches a terminal escaped: `mcpdir search` and
// `mcpdir keys list` print no control characters from the data.
func TestCLIEscapesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	file := writeLines(t, `{"name": "evil\u001b]0;pwned\u0007", "brief": "clears \u001b[2J the screen", "website_url": "https://example.com/evil"}`)
	cli(t, dir, "import", file)
	// The CLI refuses such a name; a key made by other means could have one.
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"mcpdir", "keys", "create", "--name", "key\x1b[31mred", "--data-dir", dir}, noEnv, nil, io.Discard, &stderr); err == nil {
		t.Error("keys create took a name with an escape sequence")
	}
	store, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	secret, prefix := auth.NewSecret()
	if err := store.CreateKey(context.Background(), &mcpdir.APIKey{Prefix: prefix, Name: "key\x1b[31mred", Scope: mcpdir.ScopeSearch, Hash: auth.Hash(secret), RateLimit: 20, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, out := range []string{cli(t, dir, "search", "evil"), cli(t, dir, "keys", "list")} {
		if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
			t.Errorf("control characters reach the terminal:\n%q", out)
		}
	}
	if out := cli(t, dir, "search", "evil"); !strings.Contains(out, `evil\x1b]0;pwned\a`) {
		t.Errorf("the escaped name is not shown:\n%s", out)
	}
}

// Entries imported and keys made by the CLI reach a running server promptly
// (the feed polls every 100 ms here; the waits allow for a loaded machine,
// and the time it took is logged).
func TestRunningServerSeesCLIWrites(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	key := newKey(t, s.DataDir, "--rate-limit", "unlimited")
	if res := s.search(t, key, "zebrafish"); res.Total != 0 {
		t.Fatalf("empty store found %d", res.Total)
	}
	cli(t, s.DataDir, "import", writeLines(t, `{"name": "zebrafish-mcp", "brief": "Zebrafish genome lookups", "website_url": "https://example.com/zebrafish"}`))
	start := time.Now()
	waitFor(t, 5*time.Second, "imported entry searchable", func() bool { return s.search(t, key, "zebrafish").Total == 1 })
	t.Logf("import visible after %v", time.Since(start).Round(time.Millisecond))
	cli(t, s.DataDir, "import", writeLines(t, `{"name": "zebrafish-mcp", "brief": "Zebrafish genome and anatomy lookups", "website_url": "https://example.com/zebrafish"}`))
	waitFor(t, 5*time.Second, "updated entry searchable", func() bool { return s.search(t, key, "anatomy").Total == 1 })
}

func TestNoStarter(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	key := newKey(t, s.DataDir)
	if res := s.search(t, key, "github"); res.Total != 0 {
		t.Fatalf("--no-starter store has %d github entries", res.Total)
	}
}

// buildBinary builds mcpdir once per test run, for tests that need a real
// process to kill or signal.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "mcpdir-bin")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mcpdir")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary: skipped in -short mode")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// corpusOrSynthetic returns the shared package corpus, or a synthetic file
// of the same shape when the shared data is absent.
func corpusOrSynthetic(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCPDIR_SHARED_DATA")
	if dir == "" {
		dir = filepath.Join(moduleRoot(t), "..", "shared", "data")
	}
	p := filepath.Join(dir, "packages-corpus.jsonl")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	t.Logf("%s not found: using 20000 synthetic records", p)
	lines := make([]string, 20000)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"name": "synthetic-mcp-%d", "brief": "Synthetic server number %d", "website_url": "https://example.com/p/%d", "registry": "npm", "downloads": %d}`, i, i, i, i)
	}
	return writeLines(t, lines...)
}

// A kill -9 in the middle of an import loses nothing it acknowledged, leaves
// the store consistent, and running the import again completes it; running
// it a third time changes nothing.
func TestImportSurvivesKill9(t *testing.T) {
	bin := binary(t)
	corpus := corpusOrSynthetic(t)
	total := countLines(t, corpus)
	dir := t.TempDir()

	cmd := exec.Command(bin, "import", "--data-dir", dir, corpus)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := 0
	sc := bufio.NewScanner(stderr)
	re := regexp.MustCompile(`(\d+) records committed`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			acked, _ = strconv.Atoi(m[1])
			if acked >= 5000 {
				break
			}
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if acked < 5000 {
		t.Fatalf("import never acknowledged 5000 records before ending")
	}

	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
	n, _ := db.CountEntries(ctx)
	db.Close()
	if n < acked {
		t.Fatalf("after kill -9: %d entries stored, %d were acknowledged", n, acked)
	}
	t.Logf("killed after %d acknowledged; %d stored", acked, n)

	out, err := exec.Command(bin, "import", "--data-dir", dir, corpus).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(\d+) added, (\d+) updated, (\d+) unchanged, (\d+) skipped`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("summary: %s", out)
	}
	added, _ := strconv.Atoi(m[1])
	unchanged, _ := strconv.Atoi(m[3])
	skipped, _ := strconv.Atoi(m[4])
	if unchanged != n || added+unchanged+skipped != total {
		t.Fatalf("re-import: %s (stored before %d, lines %d)", out, n, total)
	}
	out, err = exec.Command(bin, "import", "--data-dir", dir, corpus).Output()
	if err != nil || !strings.Contains(string(out), " 0 added, 0 updated, ") {
		t.Fatalf("third import changed something: %s %v", out, err)
	}
}

// SIGTERM stops accepting, lets in-flight requests finish, and exits 0.
func TestSIGTERMDrains(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	key := newKey(t, dir, "--rate-limit", "unlimited")
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data-dir", dir)
	var logs syncBuffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url := "http://" + addr + "/api/open/v1/search?keywords=database"
	waitFor(t, 20*time.Second, "server ready", func() bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	complete, failed := 0, 0
	stop := time.Now().Add(1500 * time.Millisecond)
	for range 8 {
		wg.Go(func() {
			for time.Now().Before(stop) {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", "Bearer "+key)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue // refused after shutdown began: fine
				}
				var body searchBody
				err = json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				mu.Lock()
				if err == nil && resp.StatusCode == 200 && body.Count > 0 {
					complete++
				} else {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("no exit within 20s of SIGTERM")
	}
	wg.Wait()
	if failed > 0 || complete == 0 {
		t.Fatalf("%d requests answered in full, %d answered broken", complete, failed)
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Fatalf("no clean stop in logs:\n%s", logs.String())
	}
}
