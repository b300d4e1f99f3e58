package main

import (
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
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/service"
)

// Every command and subcommand answers -h and --help with its usage on
// standard output and success (exit 0), not a usage error.
func TestHelpOnEveryCommand(t *testing.T) {
	commands := [][]string{
		{"serve"}, {"keys"}, {"keys", "create"}, {"keys", "list"}, {"keys", "revoke"},
		{"accounts"}, {"accounts", "list"}, {"accounts", "disable"},
		{"import"}, {"search"}, {"sync"}, {"check"}, {"version"}, {"migrate"}, {"backup"}, {"health"},
	}
	for _, c := range commands {
		for _, h := range []string{"-h", "--help"} {
			args := append(append([]string{"mcpdir"}, c...), h)
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), args, noEnv, nil, &stdout, &stderr)
			if err != nil {
				t.Errorf("%v: %v (exit %d), want success\n%s", args[1:], err, exitCode(err), stderr.String())
				continue
			}
			out := stdout.String()
			if !strings.HasPrefix(out, "Usage:\n  mcpdir "+c[0]) {
				t.Errorf("%v printed %q, want its usage", args[1:], out)
			}
			if len(c) == 2 || c[0] == "serve" || c[0] == "search" {
				if !strings.Contains(out, "-data-dir") {
					t.Errorf("%v: the usage lists no flags:\n%s", args[1:], out)
				}
			}
		}
	}
}

// Every flag serve takes is in the README's command table, and so is
// every command.
func TestREADMEDocumentsEveryServeFlag(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"mcpdir", "serve", "-h"}, noEnv, nil, &stdout, &stdout); err != nil {
		t.Fatal(err)
	}
	flags := regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(stdout.String(), -1)
	if len(flags) < 20 {
		t.Fatalf("found %d flags in serve -h:\n%s", len(flags), stdout.String())
	}
	for _, f := range flags {
		if !bytes.Contains(readme, []byte("`--"+f[1])) {
			t.Errorf("README.md does not document serve --%s", f[1])
		}
	}
	for _, c := range []string{"serve", "keys create", "keys list", "keys revoke", "import", "search", "check", "accounts list", "sync", "version"} {
		if !bytes.Contains(readme, []byte("| `mcpdir "+c)) {
			t.Errorf("README.md's command table has no row for mcpdir %s", c)
		}
	}
}

func TestLogFormatFollowsTheTerminal(t *testing.T) {
	for _, c := range []struct {
		asked    string
		terminal bool
		want     string
	}{{"", true, "text"}, {"", false, "json"}, {"json", true, "json"}, {"text", false, "text"}} {
		if got := logFormatFor(c.asked, c.terminal); got != c.want {
			t.Errorf("logFormatFor(%q, terminal %v) = %q, want %q", c.asked, c.terminal, got, c.want)
		}
	}
	// A character device that is no terminal (2>/dev/null) gets JSON.
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		if isTerminal(null) {
			t.Errorf("%s taken for a terminal", os.DevNull)
		}
		null.Close()
	}
	err := run(t.Context(), []string{"mcpdir", "serve", "--log-format", "yaml", "--data-dir", t.TempDir()}, noEnv, nil, io.Discard, io.Discard)
	if exitCode(err) != 2 {
		t.Errorf("--log-format yaml: %v, want a usage error", err)
	}
}

// keys create prints configurations for the URL the server on the same
// store announced (its --public-url), says so, and --url overrides it.
func TestKeysCreateUsesTheServersPublicURL(t *testing.T) {
	dir := t.TempDir()
	out := cli(t, dir, "keys", "create", "--name", "before")
	if !strings.Contains(out, `"url": "http://127.0.0.1:8080/api/open/mcp"`) || !strings.Contains(out, "no server has run on this store yet") {
		t.Errorf("before any server ran:\n%s", out)
	}
	s := startServer(t, dir, "--public-url", "https://mcp.example.org/", "--log-format", "text")
	out = cli(t, dir, "keys", "create", "--name", "after")
	if !strings.Contains(out, `"url": "https://mcp.example.org/api/open/mcp"`) || !strings.Contains(out, "the server on this store announced") {
		t.Errorf("after serve --public-url:\n%s", out)
	}
	out = cli(t, dir, "keys", "create", "--name", "flag", "--url", "http://10.0.0.5:9000")
	if !strings.Contains(out, `"url": "http://10.0.0.5:9000/api/open/mcp"`) || !strings.Contains(out, "from --url") {
		t.Errorf("with --url:\n%s", out)
	}
	// Text logs, with durations a person reads. (Lines reach stderr a
	// moment after they are logged: the log writer gathers them.)
	indexLine := regexp.MustCompile(`msg="index built" entries=\d+ took=[0-9.]+(ms|s|µs)\b`)
	waitFor(t, 5*time.Second, "a readable index line in the text log", func() bool { return indexLine.MatchString(s.stderr.String()) })
}

// On the embedded store a restart does not refill the budgets: 12 of 20
// searches spent, the server restarted, the next search leaves 7.
func TestRateWindowsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t, dir)
	t.Run("spend 12", func(t *testing.T) {
		s := startServer(t, dir)
		for i := range 12 {
			resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != strconv.Itoa(19-i) {
				t.Fatalf("search %d: %d remaining %s", i, resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
			}
		}
	}) // the server stops here
	s := startServer(t, dir)
	resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Remaining") != "7" {
		t.Fatalf("after the restart: %d remaining %s, want 7 (the budget continues from 8)", resp.StatusCode, resp.Header.Get("RateLimit-Remaining"))
	}
}

// Without DNS, check says so once at the top, and each entry's line says
// which name did not resolve, briefly.
func TestCheckSaysOnceWhenNoNameResolves(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for _, n := range []string{"alpha", "beta", "gamma", "delta"} {
		lines = append(lines, fmt.Sprintf(`{"name": %q, "brief": "Hosted", "website_url": "https://example.com/%s", "remotes": [{"url": "https://%s.mcpdir-test.invalid/mcp", "type": "streamable-http"}]}`, n, n, n))
	}
	cli(t, dir, "import", writeLines(t, lines...))
	start := time.Now()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"mcpdir", "check", "--data-dir", dir}, noEnv, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "Nothing was recorded") {
		t.Errorf("check with no name resolving: %v, want it to say nothing was recorded", err)
	}
	out := stdout.String()
	if took := time.Since(start); took > 3*service.DNSTimeout {
		t.Errorf("check took %s", took)
	}
	if strings.Count(out, "no name resolves") != 1 || !strings.HasPrefix(out, "no name resolves (tried ") {
		t.Errorf("want one notice at the top:\n%s", out)
	}
	if n := strings.Count(out, ".mcpdir-test.invalid does not resolve"); n != 4 {
		t.Errorf("%d lines say the name does not resolve, want 4:\n%s", n, out)
	}
	for line := range strings.Lines(out) {
		if len(line) > 200 {
			t.Errorf("a long line: %q", line)
		}
	}
}

// The web pages' rough edges: the search box takes what search takes, a
// page past the last is empty, the icon is served, and an entry with
// nothing to show as chips renders no empty list.
func TestPagesFirstHour(t *testing.T) {
	dir := t.TempDir()
	cli(t, dir, "import", "--starter", writeLines(t, `{"name": "quokka", "brief": "A quokka server with no tags, transports or badges"}`))
	s := startServer(t, dir)
	page := func(path string) (*http.Response, string) {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	if _, body := page("/"); !strings.Contains(body, fmt.Sprintf(`maxlength="%d"`, mcpdir.MaxKeywordsBytes)) {
		t.Errorf("the search box's maxlength is not %d", mcpdir.MaxKeywordsBytes)
	}
	_, first := page("/?q=postgres")
	if !strings.Contains(first, `class="results"`) {
		t.Fatal("no results for postgres")
	}
	for _, p := range []string{"/?page=50&q=postgres", "/?page=11&q=postgres", "/?page=9&q=postgres"} {
		resp, body := page(p)
		if resp.StatusCode != 200 || strings.Contains(body, `class="results"`) || !strings.Contains(body, "past the last one") {
			t.Errorf("%s: %d, want an empty page that says it is past the last:\n%s", p, resp.StatusCode, body)
		}
	}
	resp, icon := page("/favicon.ico")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(resp.Header.Get("Cache-Control"), "max-age") || !strings.HasPrefix(icon, "<svg") {
		t.Errorf("/favicon.ico: %d %v", resp.StatusCode, resp.Header)
	}
	emptyList := regexp.MustCompile(`<ul[^>]*>\s*</ul>`)
	_, body := page("/?q=quokka")
	link := regexp.MustCompile(`href="(/servers/[0-9a-f-]{36})"`).FindStringSubmatch(body)
	if link == nil || emptyList.MatchString(body) {
		t.Fatalf("search page of an entry without chips: an empty list, or no link:\n%s", body)
	}
	if _, body := page(link[1]); emptyList.MatchString(body) {
		t.Errorf("server page of an entry without chips has an empty list:\n%s", body)
	}
}

// import into a store with no entries yet says serve will not add the
// starter directory afterwards, and --starter loads it too.
func TestImportIntoAnEmptyStoreOffersTheStarter(t *testing.T) {
	file := writeLines(t, `{"name": "my-own-server", "brief": "Mine"}`)
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"mcpdir", "import", file, "--data-dir", dir}, noEnv, nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "serve will not load the starter directory") || !strings.Contains(stderr.String(), "--starter") {
		t.Errorf("no word about the starter directory:\n%s", stderr.String())
	}
	// A second import into the same store says nothing of it.
	stderr.Reset()
	if err := run(t.Context(), []string{"mcpdir", "import", file, "--data-dir", dir}, noEnv, nil, io.Discard, &stderr); err != nil || strings.Contains(stderr.String(), "starter") {
		t.Errorf("second import: %v\n%s", err, stderr.String())
	}
	if out := cli(t, dir, "search", "postgres"); !strings.HasSuffix(out, "0 of 0 matches\n") {
		t.Errorf("without --starter the starter directory is not loaded:\n%s", out)
	}
	withStarter := t.TempDir()
	out := cli(t, withStarter, "import", "--starter", file)
	if !strings.HasPrefix(out, "loaded the starter directory into the empty store: ") || !strings.Contains(out, "1 added") {
		t.Errorf("import --starter:\n%s", out)
	}
	if out := cli(t, withStarter, "search", "postgres"); strings.Contains(out, "0 of 0") {
		t.Errorf("with --starter, postgres finds nothing:\n%s", out)
	}
}

// The README's example answer is what a fresh start gives.
func TestREADMEExampleMatchesAFreshStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\{"data":\[\{"id":"…","name":"([^"]+)".*\n "count":(\d+),"total":(\d+),"keywords":"postgres","facets":\{"transports":(\{[^}]*\}),"registries":(\{[^}]*\})`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("no example answer for postgres in README.md")
	}
	if mcp, err := os.ReadFile("../../docs/mcp.md"); err != nil || !bytes.Contains(mcp, []byte("The Inspector needs Node.js 22.19 or later")) {
		t.Errorf("docs/mcp.md does not say which Node the Inspector needs (%v)", err)
	}
	s := startServer(t, "")
	key := newKey(t, s.DataDir)
	resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "Bearer "+key)
	body := decode[struct {
		Data []struct {
			Name string `json:"name"`
		} `json:"data"`
		Count  int `json:"count"`
		Total  int `json:"total"`
		Facets struct {
			Transports json.RawMessage `json:"transports"`
			Registries json.RawMessage `json:"registries"`
		} `json:"facets"`
	}](t, resp)
	got := fmt.Sprintf("%s %d %d %s %s", body.Data[0].Name, body.Count, body.Total, body.Facets.Transports, body.Facets.Registries)
	want := fmt.Sprintf("%s %s %s %s %s", m[1], m[2], m[3], m[4], m[5])
	if got != want {
		t.Errorf("a fresh start answers\n%s\nthe README shows\n%s", got, want)
	}
}

// e2e/clients.sh shows the conformance suite's summary with the
// baseline's scenarios marked "expected": a passing run prints no "✗".
func TestConformanceSummaryMarksExpectedFailures(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk")
	}
	out := filepath.Join(t.TempDir(), "conformance.out")
	os.WriteFile(out, []byte("=== Running scenario: ping ===\n\n=== SUMMARY ===\n✓ server-initialize: 2 passed, 0 failed\n✓ ping: 1 passed, 0 failed\n"+
		"✗ completion-complete: 0 passed, 1 failed\n✗ tools-call-image: 1 passed, 2 failed\n\nTotal: 4 passed, 3 failed\n\nExpected failures (in baseline):\n  ~ completion-complete\n"), 0o600)
	summary := func() string {
		b, err := exec.Command(awk, "-f", "../../e2e/conformance-summary.awk", "../../e2e/conformance-baseline.yml", out).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return string(b)
	}
	got := summary()
	want := "✓ server-initialize: 2 checks ok\n✓ ping: 1 check ok\n" +
		"~ completion-complete: expected (in e2e/conformance-baseline.yml): 0 checks ok, 1 failing by design\n" +
		"~ tools-call-image: expected (in e2e/conformance-baseline.yml): 1 check ok, 2 failing by design\n" +
		"conformance checks in all: 4 ok, 3 expected to fail, 0 failed\n"
	if got != want {
		t.Errorf("summary of a passing run:\n%s\nwant\n%s", got, want)
	}
	// A failure outside the baseline still reads as one.
	os.WriteFile(out, []byte("=== SUMMARY ===\n✗ ping: 0 passed, 1 failed\n\nTotal: 0 passed, 1 failed\n"), 0o600)
	if got := summary(); !strings.Contains(got, "✗ ping: 0 checks ok, 1 failed\n") || !strings.Contains(got, "0 expected to fail, 1 failed") {
		t.Errorf("an unexpected failure:\n%s", got)
	}
}
