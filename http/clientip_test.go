package http

import (
	"net/http/httptest"
	"testing"
)

func TestClientIP(t *testing.T) {
	trusted, err := ParseTrustedProxies("10.0.0.0/8, 127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ remote, xff, want string }{
		{"203.0.113.5:1234", "", "203.0.113.5"},
		{"203.0.113.5:1234", "198.51.100.1", "203.0.113.5"},                   // not a trusted peer: the header is ignored
		{"127.0.0.1:1234", "198.51.100.1", "198.51.100.1"},                    // a trusted proxy says who
		{"127.0.0.1:1234", "6.6.6.6, 198.51.100.1, 10.1.2.3", "198.51.100.1"}, // the client cannot push its own entry past the proxies
		{"127.0.0.1:1234", "garbage", "127.0.0.1"},
		{"127.0.0.1:1234", "", "127.0.0.1"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := trusted.ClientIP(r); got != c.want {
			t.Errorf("%s with %q: %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
	if _, err := ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Error("a bad network was accepted")
	}
}
