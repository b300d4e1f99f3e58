package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Issue 35: every admin and publisher action is recorded, with who, what,
// when and what it changed, and read back at GET /api/admin/v1/audit.
func TestAuditTrail(t *testing.T) {
	s := startServer(t, "", "--no-starter")
	admin := newKey(t, s.DataDir, "--scope", "admin", "--rate-limit", "unlimited", "--name", "ops")
	key := newKey(t, s.DataDir)
	do := func(method, path, body string, want int) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
	}
	id := mcpdirEntryID("https://example.com/audited")
	do(http.MethodPost, "/api/admin/v1/entries", `{"name": "audited", "brief": "Before", "website_url": "https://example.com/audited"}`, http.StatusCreated)
	do(http.MethodPut, "/api/admin/v1/entries/"+id, `{"name": "audited", "brief": "After", "website_url": "https://example.com/audited"}`, http.StatusOK)
	do(http.MethodPost, "/api/admin/v1/entries/"+id+"/approve", "", http.StatusOK)
	do(http.MethodPost, "/v0.1/publish", `{"name": "com.acme/audited", "description": "Published", "version": "1.0.0"}`, http.StatusOK)
	do(http.MethodDelete, "/api/admin/v1/entries/"+id, "", http.StatusNoContent)
	cli(t, s.DataDir, "keys", "revoke", strings.SplitN(key, "_", 3)[0]+"_"+strings.SplitN(key, "_", 3)[1][:8])

	var trail struct {
		Data []struct {
			Actor, Action, Target string
			Changes               map[string]struct{ Before, After any }
		}
		Count int
	}
	resp := get(t, s.URL+"/api/admin/v1/audit?limit=50", "Bearer "+admin)
	json.NewDecoder(resp.Body).Decode(&trail)
	resp.Body.Close()
	var actions []string
	for _, r := range trail.Data {
		actions = append(actions, r.Action)
	}
	want := "key.revoke entry.delete registry.publish entry.approve entry.replace entry.create key.create key.create"
	if strings.Join(actions, " ") != want {
		t.Fatalf("the trail: %v, want %s", actions, want)
	}
	replace := trail.Data[4]
	if !strings.HasPrefix(replace.Actor, "key mcpd_") || !strings.HasSuffix(replace.Actor, "(ops)") || replace.Target != id ||
		replace.Changes["brief"].Before != "Before" || replace.Changes["brief"].After != "After" || len(replace.Changes) != 2 {
		t.Fatalf("the replace: %+v", replace) // brief, and edited
	}
	if trail.Data[2].Target != "com.acme/audited@1.0.0" || trail.Data[0].Actor != "cli" {
		t.Fatalf("the publish and the revocation: %+v", trail.Data)
	}
	if resp := get(t, s.URL+"/api/admin/v1/audit", "Bearer "+key); resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the trail with a search key: %d", resp.StatusCode)
	}
	if resp := get(t, s.URL+"/api/admin/v1/audit?limit=0", "Bearer "+admin); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("limit=0: %d", resp.StatusCode)
	}
}
