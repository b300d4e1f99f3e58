package http

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/web"
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

// The page and registry limits count an IPv6 client by its /64: another
// address of the same /64 shares the budget, another /64 has its own.
func TestPerAddressLimitsCountIPv6By64(t *testing.T) {
	trusted, _ := ParseTrustedProxies("127.0.0.1")
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	pages, err := web.New(nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{TrustedProxies: trusted, PageLimiter: memory.NewLimiter(nil), PagesPerMinute: 2, RegistryPerMinute: 2,
		RegistryAccess: RegistryPublic, Pages: pages}
	for name, h := range map[string]http.Handler{"pages": pageLimit(cfg)(ok), "registry": registryAccess(cfg)(ok)} {
		status := func(from string) int {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = "127.0.0.1:1234"
			r.Header.Set("X-Forwarded-For", from)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Code
		}
		for _, from := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2"} {
			if got := status(from); got != http.StatusNoContent {
				t.Fatalf("%s from %s: %d", name, from, got)
			}
		}
		if got := status("2001:db8:1:2:ffff::9"); got != http.StatusTooManyRequests {
			t.Fatalf("%s: a third address of the same /64 got %d, want 429", name, got)
		}
		if got := status("2001:db8:1:3::1"); got != http.StatusNoContent {
			t.Fatalf("%s: another /64 got %d", name, got)
		}
		if got := status("192.0.2.1"); got != http.StatusNoContent {
			t.Fatalf("%s: an IPv4 client got %d", name, got)
		}
	}
}
