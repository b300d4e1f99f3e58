package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The container image's health check: 0 for a ready server, 1 for one that
// answers anything else or nothing, 2 for a mistake in the command line.
func TestHealthCommand(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	health := func(args ...string) (string, string, error) {
		var stdout, stderr strings.Builder
		err := run(context.Background(), append([]string{"mcpdir", "health"}, args...), noEnv, nil, &stdout, &stderr)
		return stdout.String(), stderr.String(), err
	}
	out, _, err := health(s.URL + "/readyz")
	if err != nil || !strings.Contains(out, `"status"`) {
		t.Fatalf("ready server: %v, stdout %q", err, out)
	}
	// A URL without a path asks /readyz.
	if _, _, err := health(s.URL); err != nil {
		t.Fatalf("URL without a path: %v", err)
	}

	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"status":"starting"}`))
	}))
	defer starting.Close()
	_, _, err = health(starting.URL + "/readyz")
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "starting") {
		t.Fatalf("503: %v", err)
	}
	redirect := httptest.NewServer(http.RedirectHandler(s.URL+"/readyz", http.StatusFound))
	defer redirect.Close()
	if _, _, err = health(redirect.URL + "/readyz"); err == nil || exitCode(err) != 1 {
		t.Fatalf("a redirect is not ready: %v", err)
	}
	// Nothing listening.
	if _, _, err = health("http://" + freeAddr(t) + "/readyz"); err == nil || exitCode(err) != 1 {
		t.Fatalf("no server: %v", err)
	}

	for _, args := range [][]string{{}, {"ftp://x/readyz"}, {"127.0.0.1:8080"}, {"a", "b"}, {"--timeout", "0s", s.URL}} {
		if _, _, err := health(args...); err == nil || exitCode(err) != 2 {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
