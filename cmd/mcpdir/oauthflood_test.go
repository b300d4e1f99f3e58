package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/storetest"
)

// registerAs registers a client through the server's trusted proxy
// (127.0.0.1), which names the client in X-Forwarded-For.
func registerAs(t *testing.T, base, addr string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/oauth/register", strings.NewReader(`{"client_name":"Flood","redirect_uris":["https://a.example/cb"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Issue 28, finding 2, through the real server on SQLite and PostgreSQL:
// the registration limit counts an IPv6 /64 as one address, one IPv4 /24
// holds at most its share of the clients, and a client from another
// network registers afterwards.
func TestOAuthRegistrationFloodThroughTheProxy(t *testing.T) {
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			args := []string{"--trusted-proxies", "127.0.0.1", "--no-starter"}
			if store == "postgres" {
				args = append(args, "--database-url", storetest.PostgresURL(t))
			}
			s := startServer(t, "", args...)
			created := 0
			for i := range 40 { // 40 addresses of one /64
				if code := registerAs(t, s.URL, fmt.Sprintf("2001:db8:1:2::%x", i+1)); code == http.StatusCreated {
					created++
				} else if code != http.StatusTooManyRequests {
					t.Fatalf("registration %d: %d", i, code)
				}
			}
			if created != 20 {
				t.Fatalf("40 addresses of one /64 registered %d clients, want 20 (the /64's hour)", created)
			}
			created = 0
			for i := range 130 { // 20 an hour from each address of one /24
				if registerAs(t, s.URL, fmt.Sprintf("198.51.100.%d", i/20+1)) == http.StatusCreated {
					created++
				}
			}
			if created != 100 {
				t.Fatalf("one /24 registered %d clients, want its share of 100", created)
			}
			for _, from := range []string{"2001:db8:9:9::1", "192.0.2.1"} {
				if code := registerAs(t, s.URL, from); code != http.StatusCreated {
					t.Fatalf("after the floods, a client from %s: %d", from, code)
				}
			}
		})
	}
}
