package main

import (
	"net/http"
	"testing"
)

// An access token, like a key, is accepted bare (Authorization: mcpdat_…)
// as well as after Bearer (docs/oauth.md says so); the MCP endpoint asks
// the same guard.
func TestBareAccessToken(t *testing.T) {
	s := startServer(t, "")
	token := grantToken(t, s, "bare@example.com")
	for _, authorization := range []string{token, "Bearer " + token, "bearer " + token} {
		resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", authorization)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("REST with %.14s…: %d", authorization, resp.StatusCode)
		}
	}
	resp := get(t, s.URL+"/api/open/v1/search?keywords=postgres", "mcpdat_made-up")
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a made-up bare token: %d", resp.StatusCode)
	}
}
