package netguard_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/netguard"
)

func TestAllowedRefusesEverySpecialRange(t *testing.T) {
	for _, s := range []string{
		// IPv4
		"0.0.0.0", "0.1.2.3", // unspecified, "this network"
		"127.0.0.1", "127.255.255.254", // loopback
		"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.255", // RFC 1918
		"169.254.169.254", "169.254.0.1", // link-local, cloud metadata
		"100.64.0.1", "100.127.255.255", // CGNAT
		"224.0.0.1", "239.255.255.255", // multicast
		"255.255.255.255", "240.0.0.1", // broadcast, reserved
		"192.0.0.8", "192.0.2.1", "198.51.100.7", "203.0.113.9", // IETF, documentation
		"198.18.0.1", "198.19.255.255", // benchmarking
		"192.88.99.1", // 6to4 relay
		// IPv6
		"::", "::1", // unspecified, loopback
		"fe80::1", "fe80::1%eth0", "febf::1", // link-local
		"fc00::1", "fd12:3456::1", // unique-local
		"fec0::1",            // site-local
		"ff02::1", "ff0e::1", // multicast
		"2001:db8::1", "3fff::1", // documentation
		"2001::1", "2001:2::1", // Teredo, benchmarking
		"100::1",              // discard
		"64:ff9b:1::1",        // local-use NAT64
		"::7f00:1", "::a00:1", // IPv4-compatible 127.0.0.1, 10.0.0.1
		// IPv4-mapped forms
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:100.64.0.1", "::ffff:0.0.0.0",
		"::ffff:192.168.1.1", "::ffff:224.0.0.1", "::ffff:7f00:1",
		// IPv6 prefixes that embed a private IPv4 address
		"64:ff9b::127.0.0.1", "64:ff9b::a00:1", "2002:7f00:1::1", "2002:a00:1::1", "2002:c0a8:101::",
		// IPv4-translated (SIIT, RFC 2765), whatever address they carry
		"::ffff:0:127.0.0.1", "::ffff:0:a00:1", "::ffff:0:8.8.8.8", "::ffff:0:0:0",
	} {
		a := netip.MustParseAddr(s)
		if netguard.Allowed(a) {
			t.Errorf("Allowed(%s) = true, want false", s)
		}
		err := netguard.New(netguard.Options{}).Check(a)
		if !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("Check(%s) = %v, want ErrRefused", s, err)
		}
		if err := netguard.New(netguard.Options{AllowPrivate: true}).Check(a); err != nil {
			t.Errorf("with AllowPrivate, Check(%s) = %v", s, err)
		}
	}
}

func TestAllowedLetsPublicAddressesThrough(t *testing.T) {
	for _, s := range []string{
		"1.1.1.1", "8.8.8.8", "93.184.215.14", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0",
		"192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0", "223.255.255.255", "11.0.0.1",
		"2606:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1",
	} {
		if !netguard.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("Allowed(%s) = false, want true", s)
		}
	}
	if netguard.Allowed(netip.Addr{}) {
		t.Error("the zero address is allowed")
	}
}

// The dialer refuses at connect time: a loopback listener that exists is
// not reached.
func TestDialerRefusesAtConnectTime(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	_, err = netguard.New(netguard.Options{}).Dialer().DialContext(t.Context(), "tcp", ln.Addr().String())
	if !errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("dial %s: %v, want ErrRefused", ln.Addr(), err)
	}
	c, err := netguard.New(netguard.Options{AllowPrivate: true}).Dialer().DialContext(t.Context(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("with AllowPrivate: %v", err)
	}
	c.Close()
	<-accepted
	select {
	case <-accepted:
		t.Fatal("the refused dial reached the listener")
	case <-time.After(50 * time.Millisecond):
	}
}

// A public-looking name that resolves to a private address is refused
// before any connection; so is a name with one private address among
// public ones.
func TestNameResolvingToPrivateAddressIsRefused(t *testing.T) {
	for _, addrs := range [][]string{{"127.0.0.1"}, {"10.1.2.3"}, {"::1"}, {"::ffff:10.0.0.1"}, {"93.184.215.14", "192.168.1.1"}} {
		dialled := false
		g := netguard.New(netguard.Options{
			Resolve: func(context.Context, string) ([]netip.Addr, error) { return parseAll(addrs), nil },
			Dial: func(context.Context, string, netip.AddrPort) (net.Conn, error) {
				dialled = true
				return nil, errors.New("dialled")
			},
		})
		_, err := g.DialContext(t.Context(), "tcp", "mcp.example.com:443")
		var re *netguard.RefusedError
		if !errors.As(err, &re) || re.Host != "mcp.example.com" {
			t.Errorf("%v: %v, want a RefusedError for mcp.example.com", addrs, err)
		}
		if dialled {
			t.Errorf("%v: dialled", addrs)
		}
		if err != nil && !strings.Contains(err.Error(), "mcp.example.com resolves to") {
			t.Errorf("error %q does not name the host", err)
		}
	}
}

func TestClientRefusesLiteralPrivateURLs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "secret") }))
	defer srv.Close()
	c := netguard.New(netguard.Options{}).Client(2 * time.Second)
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "[::ffff:127.0.0.1]", 1), strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s: %s, want refused", u, resp.Status)
			continue
		}
		if !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("GET %s: %v, want ErrRefused", u, err)
		}
	}
	resp, err := netguard.New(netguard.Options{AllowPrivate: true}).Client(2 * time.Second).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// redirector answers /hop/N with a redirect to /hop/N-1 (of status code)
// and /hop/0 with "arrived" and the method it saw.
func redirector(t *testing.T, code int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/hop/%d", &n); err != nil {
			http.NotFound(w, r)
			return
		}
		if n == 0 {
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "arrived %s %s", r.Method, body)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), code)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestClientFollowsAtMostThreeRedirects(t *testing.T) {
	c := netguard.New(netguard.Options{AllowPrivate: true}).Client(2 * time.Second)
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := redirector(t, code)
		resp, err := c.Post(srv.URL+"/hop/3", "text/plain", strings.NewReader("body"))
		if err != nil {
			t.Fatalf("%d: three redirects: %v", code, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := "arrived GET "
		if code != http.StatusFound {
			want = "arrived POST body" // 307 and 308 keep the method and body
		}
		if string(got) != want {
			t.Errorf("%d: %q, want %q", code, got, want)
		}
		_, err = c.Get(srv.URL + "/hop/4")
		if !errors.Is(err, netguard.ErrTooManyRedirects) {
			t.Errorf("%d: four redirects: %v, want ErrTooManyRedirects", code, err)
		}
	}
}

// A redirect from an allowed address to a refused one stops at the refused
// hop, and the refused server is never reached.
func TestRedirectToRefusedAddressIsRefused(t *testing.T) {
	reached := make(chan struct{}, 1)
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached <- struct{}{}
		io.WriteString(w, "internal")
	}))
	defer internal.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := map[string]string{
			"/to-name":     "http://metadata.internal.test/latest",
			"/to-literal":  "http://169.254.169.254/latest",
			"/to-loopback": internal.URL,
		}[r.URL.Path]
		http.Redirect(w, r, target, http.StatusFound)
	}))
	defer public.Close()
	publicPort := netip.MustParseAddrPort(public.Listener.Addr().String()).Port()
	// mcp.example.com is a public address (of the documentation's
	// example.com); the test's Dial takes it to the loopback server.
	g := netguard.New(netguard.Options{
		Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "mcp.example.com" {
				return parseAll([]string{"93.184.215.14"}), nil
			}
			return parseAll([]string{"10.0.0.7"}), nil
		},
		Dial: func(ctx context.Context, network string, ap netip.AddrPort) (net.Conn, error) {
			if ap.Addr() != netip.MustParseAddr("93.184.215.14") {
				t.Errorf("dialled %s", ap)
			}
			var d net.Dialer
			return d.DialContext(ctx, network, fmt.Sprintf("127.0.0.1:%d", publicPort))
		},
	})
	c := g.Client(2 * time.Second)
	for _, path := range []string{"/to-name", "/to-literal", "/to-loopback"} {
		resp, err := c.Get(fmt.Sprintf("http://mcp.example.com:%d%s", publicPort, path))
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: %s, want refused", path, resp.Status)
			continue
		}
		if !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("%s: %v, want ErrRefused", path, err)
		}
	}
	select {
	case <-reached:
		t.Fatal("the internal server was reached")
	default:
	}
}

func TestRedirectToAnotherSchemeIsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	}))
	defer srv.Close()
	_, err := netguard.New(netguard.Options{AllowPrivate: true}).Client(2 * time.Second).Get(srv.URL)
	if err == nil || !strings.Contains(err.Error(), `redirect to a "file" URL refused`) {
		t.Fatalf("%v", err)
	}
}

func parseAll(ss []string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

// A lookup that hangs (no network, a resolver that waits 5 s a try) ends
// at ResolveTimeout with a DNS timeout.
func TestResolveTimeout(t *testing.T) {
	g := netguard.New(netguard.Options{ResolveTimeout: 100 * time.Millisecond, Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	start := time.Now()
	_, err := g.Resolve(context.Background(), "slow.example")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || !dnsErr.IsTimeout || time.Since(start) > time.Second {
		t.Fatalf("after %s: %v, want a DNS timeout after 100ms", time.Since(start), err)
	}
}
