// Package netguard keeps outgoing connections out of private networks
// (SSRF): a connection made on behalf of data from outside (a directory
// entry's endpoint, a client metadata document's URL) may reach only public
// unicast addresses. The address is checked after DNS resolution and again
// at connect time, in the dialer's Control hook, so that a name which
// resolves differently the second time (DNS rebinding) cannot slip through.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrRefused is what errors.Is finds in the error of a connection to an
// address the guard does not allow.
var ErrRefused = errors.New("address not allowed")

// ErrTooManyRedirects is what errors.Is finds in the error of a request
// redirected more than MaxRedirects times.
var ErrTooManyRedirects = errors.New("too many redirects")

// MaxRedirects is how many redirects a Client follows.
const MaxRedirects = 3

// RefusedError names the address refused.
type RefusedError struct {
	Host string // the name asked for, when there was one
	Addr netip.Addr
}

func (e *RefusedError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s: %v", e.Host, e.Addr, ErrRefused)
	}
	return fmt.Sprintf("%s: %v", e.Addr, ErrRefused)
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// refused are the special-purpose ranges (RFC 6890 and its successors) that
// Go's IsGlobalUnicast and IsPrivate do not already rule out.
var refused = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast included
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT): translators may reach the address it carries
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo, benchmarking, ORCHID)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("3fff::/20"),       // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
}

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// Allowed reports whether a is a public unicast address: not loopback,
// private (RFC 1918), link-local, carrier-grade NAT, multicast, unspecified,
// unique-local, documentation, benchmarking or otherwise reserved, in IPv4
// or IPv6, IPv4-mapped forms and IPv6 prefixes that embed an IPv4 address
// (NAT64, 6to4) judged by the IPv4 address they carry.
func Allowed(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range refused {
		if p.Contains(a) {
			return false
		}
	}
	if nat64.Contains(a) {
		b := a.As16()
		return Allowed(netip.AddrFrom4([4]byte(b[12:])))
	}
	if sixTo4.Contains(a) {
		b := a.As16()
		return Allowed(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// Options configure a Guard. The zero value is the guard for production:
// public addresses only, the system's resolver, a real dialer.
type Options struct {
	// AllowPrivate lifts the guard (for tests and closed networks).
	AllowPrivate bool
	// Resolve replaces DNS resolution (for tests).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial replaces the connection to an address that passed the check
	// (for tests: it bypasses the Control hook of Dialer).
	Dial func(ctx context.Context, network string, addr netip.AddrPort) (net.Conn, error)
	// DialTimeout bounds a connection attempt; default 10 s.
	DialTimeout time.Duration
	// ResolveTimeout bounds a name's lookup (the system resolver may wait
	// 5 s a try without network); zero: only the caller's context does.
	ResolveTimeout time.Duration
}

// Guard makes outgoing connections that reach only allowed addresses.
type Guard struct{ o Options }

// New returns a guard.
func New(o Options) *Guard {
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	return &Guard{o}
}

// Check returns nil for an address the guard lets through, or a
// *RefusedError.
func (g *Guard) Check(a netip.Addr) error {
	if g.o.AllowPrivate || Allowed(a) {
		return nil
	}
	return &RefusedError{Addr: a}
}

// Dialer returns a dialer whose Control hook refuses, at connect time, an
// address the guard does not allow, whatever name led to it.
func (g *Guard) Dialer() *net.Dialer {
	return &net.Dialer{Timeout: g.o.DialTimeout, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("netguard: %q: %w", address, ErrRefused)
			}
			return g.Check(ap.Addr())
		}}
}

// DialContext resolves address ("host:port"), refuses it when any address
// the name resolves to is refused (a public name does not resolve to a
// private address), and connects to the resolved addresses in turn through
// the guarded dialer.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, err := net.LookupPort(network, portStr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if err := g.Check(a); err != nil {
			return nil, &RefusedError{Host: host, Addr: a}
		}
	}
	dial := g.o.Dial
	if dial == nil {
		d := g.Dialer()
		dial = func(ctx context.Context, network string, ap netip.AddrPort) (net.Conn, error) {
			return d.DialContext(ctx, network, ap.String())
		}
	}
	var errs []error
	for _, a := range addrs {
		c, err := dial(ctx, network, netip.AddrPortFrom(a.Unmap(), uint16(port)))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// Resolve looks a host up as connections do (an address is itself), within
// ResolveTimeout; its error is a *net.DNSError.
func (g *Guard) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	return g.resolve(ctx, host)
}

func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	var addrs []netip.Addr
	var err error
	if g.o.ResolveTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.o.ResolveTimeout)
		defer cancel()
	}
	if g.o.Resolve != nil {
		addrs, err = g.o.Resolve(ctx, host)
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	if err != nil {
		var dnsErr *net.DNSError
		if !errors.As(err, &dnsErr) && ctx.Err() != nil {
			// A lookup cut by the timeout says so as a DNS error too.
			err = &net.DNSError{Err: err.Error(), Name: host, IsTimeout: ctx.Err() != nil}
		}
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// Transport returns an HTTP transport that connects through DialContext and
// never through a proxy from the environment (a proxy would connect for us,
// unguarded).
func (g *Guard) Transport() *http.Transport {
	return &http.Transport{
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    g.o.DialTimeout,
		ResponseHeaderTimeout:  g.o.DialTimeout,
		MaxIdleConns:           64,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
}

// Client returns an HTTP client on Transport that follows at most
// MaxRedirects redirects, each to an http or https URL (307 and 308 keep
// the method and body, as net/http does); every hop's address is checked
// when it is dialled. timeout bounds a whole request, 0 for none.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	return &http.Client{Transport: g.Transport(), Timeout: timeout, CheckRedirect: CheckRedirect}
}

// CheckRedirect is the redirect policy of Client, for clients built on a
// transport of their own.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fmt.Errorf("netguard: %w (more than %d)", ErrTooManyRedirects, MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("netguard: redirect to a %q URL refused", req.URL.Scheme)
	}
	return nil
}
