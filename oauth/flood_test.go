package oauth

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
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

// from is a context of a request from addr, as the HTTP layer makes it.
func from(addr string) context.Context {
	return mcpdir.WithRequestInfo(context.Background(), &mcpdir.RequestInfo{ClientAddr: addr})
}

// Finding 5 of issue 28: a flood of made-up access tokens spent the one
// lookup budget of a replica, and freshly issued real tokens got 503. Now
// the replica that issues a token knows it at once, and another replica's
// lookups are budgeted per client network: a flood from one /64 leaves
// another network's real token working on both.
func TestMadeUpTokensDoNotLockOutRealOnes(t *testing.T) {
	site := newSite(t, nil)
	frozen := time.Now() // however slow the lookups, one second
	site.srv.now = func() time.Time { return frozen }
	site.signUp()
	clientID, redirect := site.register()
	verifier := strings.Repeat("v", 43)
	code := site.allow(authQuery(clientID, redirect, verifier))
	status, tok := site.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {clientID}, "code_verifier": {verifier}})
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	real := tok["access_token"].(string)
	other := New(site.srv.cfg) // another replica on the same store
	other.now = site.srv.now

	flood := func(s *Server) {
		for i := range 3 * MaxLookupsPerSecond {
			_, err := s.authenticate(from(fmt.Sprintf("2001:db8:1:2::%x", i+1)), AccessPrefix+rand.Text())
			if c := mcpdir.ErrorCode(err); c != mcpdir.ECodeInvalidKey && c != mcpdir.ECodeUnavailable {
				t.Fatalf("a made-up token: %v", err)
			}
		}
		if _, err := s.authenticate(from("2001:db8:1:2::ffff"), AccessPrefix+rand.Text()); mcpdir.ErrorCode(err) != mcpdir.ECodeUnavailable {
			t.Fatalf("the flooding /64 is not held back: %v", err)
		}
	}
	flood(site.srv)
	flood(other)
	for name, s := range map[string]*Server{"the issuing replica": site.srv, "another replica": other} {
		if _, err := s.authenticate(from("192.0.2.7"), real); err != nil {
			t.Fatalf("%s refused a real token from another network during the flood: %v", name, err)
		}
	}
	// The issuing replica knew the token without a lookup, even from the
	// flooding network itself.
	if _, err := site.srv.authenticate(from("2001:db8:1:2::1"), real); err != nil {
		t.Fatalf("the issuing replica: %v", err)
	}
}

// Issue 28, finding 9: state (and every other parameter the authorization
// page echoes) is bounded: past the bound, a 400 page from the directory,
// nothing sent back to the client.
func TestEchoedParametersAreBounded(t *testing.T) {
	site := newSite(t, nil)
	clientID, redirect := site.register()
	q := authQuery(clientID, redirect, strings.Repeat("v", 43))
	get := func(q url.Values) (int, string, string) {
		resp, err := site.browser.Get(site.URL + "/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Location"), string(body)
	}
	q.Set("state", strings.Repeat("s", 1024))
	if code, loc, _ := get(q); code != http.StatusSeeOther || !strings.HasPrefix(loc, "/login?") {
		t.Fatalf("a state of 1 KiB: %d %q", code, loc)
	}
	for p, n := range map[string]int{"state": 1025, "scope": 1025, "code_challenge_method": 129, "resource": 2049} {
		long := cloneValues(q, p, strings.Repeat("x", n))
		if code, loc, body := get(long); code != http.StatusBadRequest || loc != "" || !strings.Contains(body, "The parameter "+p+" is longer than") {
			t.Errorf("%s of %d bytes: %d %q", p, n, code, loc)
		}
	}
}
