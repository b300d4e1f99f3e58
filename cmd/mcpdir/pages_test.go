package main

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The public directory, without a key: a search page whose results link
// to server pages with install snippets, a 404 page for unknown servers
// and paths, strict security headers, and JSON errors kept for the API.
func TestPublicPages(t *testing.T) {
	s := startServer(t, "")
	page := func(path string) (*http.Response, string) {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, body := page("/")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, `aria-label="Search MCP servers"`) {
		t.Fatalf("/: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") == "" {
		t.Errorf("security headers: %v", resp.Header)
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, " style=") {
		t.Error("inline script or style in the page")
	}
	resp, body = page("/?q=github")
	links := regexp.MustCompile(`href="(/servers/[0-9a-f-]{36})"`).FindAllStringSubmatch(body, -1)
	if resp.StatusCode != 200 || len(links) == 0 || !strings.Contains(body, "servers match") {
		t.Fatalf("search page: %d, %d results", resp.StatusCode, len(links))
	}
	resp, body = page(links[0][1])
	if resp.StatusCode != 200 || !strings.Contains(body, "Claude Desktop") || !strings.Contains(body, "claude mcp add") || !strings.Contains(body, "VS Code") || !strings.Contains(body, "Cursor") {
		t.Fatalf("server page: %d %.300s", resp.StatusCode, body)
	}
	// Escaped, never raw: a query with markup comes back as text.
	if _, body = page("/?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E"); strings.Contains(body, "<script>alert") {
		t.Error("the query was echoed unescaped")
	}
	if resp, _ = page("/?q=%00"); resp.StatusCode != 400 {
		t.Errorf("invalid keywords: %d", resp.StatusCode)
	}
	for _, p := range []string{"/servers/00000000-0000-0000-0000-000000000000", "/servers/not-a-uuid", "/no/such/page"} {
		if resp, body = page(p); resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "Not found") {
			t.Errorf("%s: %d %s", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if resp, _ = page("/api/no/such"); resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("/api/ paths keep JSON errors: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ = page("/static/site.css"); resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d", resp.StatusCode)
	}
}

// Pages are limited per client address: past the limit a 429 page with
// Retry-After; the address behind a trusted proxy is its X-Forwarded-For.
func TestPageRateLimit(t *testing.T) {
	s := startServer(t, "", "--page-rate-limit", "3", "--trusted-proxies", "127.0.0.1")
	status := func(client string) (int, string) {
		req, _ := http.NewRequest("GET", s.URL+"/?q=github", nil)
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Retry-After")
	}
	for i := range 3 {
		if st, _ := status("198.51.100.7"); st != 200 {
			t.Fatalf("page %d: %d", i+1, st)
		}
	}
	if st, retry := status("198.51.100.7"); st != 429 || retry == "" {
		t.Fatalf("past the limit: %d, Retry-After %q", st, retry)
	}
	if st, _ := status("198.51.100.8"); st != 200 {
		t.Errorf("another client was limited: %d", st)
	}
}
