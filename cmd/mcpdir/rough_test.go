package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestErrorBodiesPlain: an error body says "Bearer <key>", not
// "Bearer \u003ckey\u003e", and stays application/json with nosniff
// (issue 35, item 6.9); a server name's unencoded slash in the registry
// API is answered with the API's JSON 404 that says how to encode it, not
// the site's HTML page (item 6.10).
func TestErrorBodiesPlain(t *testing.T) {
	s := startServer(t, "")
	keyed := startServer(t, "", "--registry-api", "key")
	for _, c := range []struct {
		url    string
		status int
		want   string
	}{
		{s.URL + "/api/open/v1/search?keywords=postgres", http.StatusUnauthorized, "Bearer <key>"},
		{keyed.URL + "/v0.1/servers", http.StatusUnauthorized, "Bearer <key>"},
		{s.URL + "/v0.1/servers/com.acme/deploy/versions", http.StatusNotFound, "/v0.1/servers/com.acme%2Fdeploy/versions"},
		{s.URL + "/v0.1/servers/com.acme/deploy/versions/1.0.0", http.StatusNotFound, "/v0.1/servers/com.acme%2Fdeploy/versions/1.0.0"},
		{s.URL + "/v0.1/servers/com.acme/deploy", http.StatusNotFound, "%2F"},
	} {
		resp, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d %q %q, want %d, JSON, nosniff\n%s", c.url, resp.StatusCode, resp.Header.Get("Content-Type"),
				resp.Header.Get("X-Content-Type-Options"), c.status, body)
			continue
		}
		if !json.Valid(body) || !strings.Contains(string(body), c.want) || strings.Contains(string(body), `\u003c`) {
			t.Errorf("GET %s: %s, want it to say %q", c.url, body, c.want)
		}
	}
}
