package oauth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/clientnet"
)

// registerFrom registers a client as if from addr.
func (s *site) registerFrom(addr string) int {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.URL+"/oauth/register", strings.NewReader(`{"client_name":"Flood","redirect_uris":["https://a.example/cb"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Test-Client", addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// fromHeader makes the site's server see the address a test names, as the
// trusted-proxy setup would from X-Forwarded-For.
func (s *site) fromHeader() {
	s.srv.cfg.ClientIP = func(r *http.Request) string { return clientnet.Key(r.Header.Get("X-Test-Client")) }
}

// Finding 2 of issue 28: registrations from every address of one IPv6 /64
// (20 each) filled the table and then a client from anywhere got 503.
// Now the /64 shares one registration budget, a network holds at most its
// share, and a full table makes room: the next client from another network
// gets 201.
func TestRegistrationFloodFromOneNetwork(t *testing.T) {
	site := newSite(t, nil)
	site.fromHeader()
	site.srv.cfg.MaxClients, site.srv.cfg.MaxClientsPerNetwork = 60, 5
	created := 0
	for i := range 100 { // 100 addresses of 2001:db8:1:2::/64, 3 registrations each
		for range 3 {
			if site.registerFrom(fmt.Sprintf("2001:db8:1:2::%x", i+1)) == http.StatusCreated {
				created++
			}
		}
	}
	if created > 5 {
		t.Fatalf("one /64 registered %d clients, above its share of 5", created)
	}
	for i := range 254 { // every address of one IPv4 /24
		if site.registerFrom(fmt.Sprintf("198.51.100.%d", i+1)) == http.StatusCreated {
			created++
		}
	}
	if created > 10 {
		t.Fatalf("a /64 and a /24 registered %d clients, above their shares of 5 each", created)
	}
	// Many networks, one registration each, fill the table past its cap.
	for i := range 80 {
		if code := site.registerFrom(fmt.Sprintf("2001:db8:%x::1", 0x100+i)); code != http.StatusCreated {
			t.Fatalf("network %d: %d", i, code)
		}
	}
	for _, from := range []string{"2001:db8:9:9::1", "192.0.2.10"} {
		if code := site.registerFrom(from); code != http.StatusCreated {
			t.Fatalf("after the floods, a client from %s got %d", from, code)
		}
	}
	if n, _ := site.store.CountClients(context.Background()); n > 60 {
		t.Fatalf("%d clients, above the cap of 60", n)
	}
}
