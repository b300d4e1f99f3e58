package main

import (
	"fmt"
	"net/http"
	"testing"
)

// Issue 33, finding 6, through the real server behind its trusted proxy:
// an IPv6 address that carries an IPv4 address counts as that address in
// the registration limit (20 an hour). The /64s of one 6to4 host, or one
// Teredo client behind any relay and port, share one hour; two IPv4 hosts
// behind one NAT64 translator have one each; IPv4-mapped is the IPv4
// address.
func TestOAuthRegistrationCountsTheIPv4AddressIPv6Carries(t *testing.T) {
	s := startServer(t, "", "--trusted-proxies", "127.0.0.1", "--no-starter")
	count := func(what string, addrs func(i int) string, want int) {
		t.Helper()
		created := 0
		for i := range 30 {
			switch code := registerAs(t, s.URL, addrs(i)); code {
			case http.StatusCreated:
				created++
			case http.StatusTooManyRequests:
			default:
				t.Fatalf("%s, registration %d: %d", what, i, code)
			}
		}
		if created != want {
			t.Errorf("%s: %d clients registered, want %d", what, created, want)
		}
	}
	// 6to4: 2002:c000:207::/48 is 192.0.2.7's, each i a /64 of its own.
	count("6to4, 30 /64s of one IPv4 host", func(i int) string { return fmt.Sprintf("2002:c000:207:%x::1", i) }, 20)
	count("the 6to4 host's IPv4 address itself", func(int) string { return "192.0.2.7" }, 0)
	// Teredo: 192.0.2.45 (inverted: 3fff:fdd2) through other relays and ports.
	count("Teredo, one client", func(i int) string { return fmt.Sprintf("2001:0:c633:64%02x:8000:%x:3fff:fdd2", i, 0xf000+i) }, 20)
	// NAT64: one translator, the IPv4 host behind it in the last 32 bits.
	count("NAT64, one host", func(int) string { return "64:ff9b::198.51.100.7" }, 20)
	count("NAT64, another host behind the same translator", func(int) string { return "64:ff9b::198.51.100.8" }, 20)
	count("NAT64 local-use prefix, a third host", func(int) string { return "64:ff9b:1:ab::198.51.100.9" }, 20)
	// IPv4-mapped: the same budget as the IPv4 address.
	count("IPv4-mapped", func(i int) string { return []string{"::ffff:203.0.113.5", "203.0.113.5"}[i%2] }, 20)
}
