package registry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/mcpdir/mcpdir/netguard"
	"github.com/mcpdir/mcpdir/registry"
)

// Issue 28, finding 9: a sync fetches through the SSRF guard unless the
// operator allows private addresses, and never through a proxy from the
// environment unless asked.
func TestSyncFetchesThroughTheGuard(t *testing.T) {
	f, s, db := setup(t)
	s.Client = nil // the default: public addresses only
	_, err := s.Sync(context.Background())
	f.mu.Lock()
	reached := len(f.requests)
	f.mu.Unlock()
	if !errors.Is(err, netguard.ErrRefused) || reached != 0 {
		t.Fatalf("a sync from a loopback registry: %v (%d requests reached it)", err, reached)
	}
	if n, _ := db.CountEntries(context.Background()); n != 0 {
		t.Fatalf("%d entries from a refused registry", n)
	}

	// A proxy in the environment is not used unless asked; asked, it is
	// (and may be on a private address: it is the operator's).
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		if r.URL.Host != "registry.example" {
			http.Error(w, "unexpected", http.StatusBadGateway)
			return
		}
		f.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("NO_PROXY", "")
	s.Base = "http://registry.example"
	s.Client = registry.HTTPClient(false, false)
	s.Tries = 1
	if _, err := s.Sync(context.Background()); err == nil || proxied.Load() != 0 {
		t.Fatalf("without asking, the environment's proxy was used: %v, %d requests", err, proxied.Load())
	}
	s.Client = registry.HTTPClient(false, true)
	if _, err := s.Sync(context.Background()); err != nil || proxied.Load() == 0 {
		t.Fatalf("through the environment's proxy, asked for: %v, %d requests", err, proxied.Load())
	}
	if n, _ := db.CountEntries(context.Background()); n == 0 {
		t.Fatal("nothing synced through the proxy")
	}
}
