package http

import (
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/clientnet"
)

// TrustedProxies are the networks whose X-Forwarded-For a server believes:
// the load balancers in front of it. Anyone else could write the header.
type TrustedProxies []netip.Prefix

// ParseTrustedProxies reads a comma-separated list of addresses or CIDR
// networks.
func ParseTrustedProxies(s string) (TrustedProxies, error) {
	var out TrustedProxies
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			addr, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			part = netip.PrefixFrom(addr, addr.BitLen()).String()
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (t TrustedProxies) contains(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// ClientIP is the address a request comes from: the peer's, or, when the
// peer is a trusted proxy, the last address in X-Forwarded-For that is not
// one (the client as the outermost trusted proxy saw it).
func (t TrustedProxies) ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !t.contains(peer) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !t.contains(a) {
			return a.Unmap().String()
		}
	}
	return host
}

// pageLimit bounds the pages each client address may ask for: generous
// for people, a ceiling for scrapers. Refused: 429 with Retry-After.
func pageLimit(cfg Config) func(http.Handler) http.Handler {
	return perAddress(cfg, "page:", cfg.PagesPerMinute, mcpdir.DoorWeb, func(w http.ResponseWriter, r *http.Request) {
		cfg.Pages.Message(w, r, http.StatusTooManyRequests, "Too many requests",
			"This address has asked for many pages in the last minute: wait a moment and try again.")
	})
}

// perAddress lets each client address (an IPv6 address by its /64:
// clientnet.Key) make perMinute requests a minute, counted under prefix in
// cfg.PageLimiter; a request over it is counted as limited at door, given
// Retry-After and answered by refuse. A limiter that fails lets requests
// through.
func perAddress(cfg Config, prefix string, perMinute int, door string, refuse http.HandlerFunc) func(http.Handler) http.Handler {
	if perMinute <= 0 || cfg.PageLimiter == nil {
		return func(h http.Handler) http.Handler { return h }
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, err := cfg.PageLimiter.Allow(r.Context(), prefix+clientnet.Key(cfg.TrustedProxies.ClientIP(r)), perMinute, time.Minute)
			if err == nil && !d.Allowed {
				insightOf(cfg).Limited(door)
				w.Header().Set("Retry-After", strconv.Itoa(mcpdir.RetryAfterSeconds(d)))
				refuse(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
