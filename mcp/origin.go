package mcp

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// origins decides which browser origins may call the endpoint. Requests
// without an Origin header do not come from a web page and pass; a page of
// the server's own origin passes; any other page only if configured.
type origins struct {
	any     bool
	allowed map[string]bool // normalized scheme://host[:port]
}

func newOrigins(list []string) (origins, error) {
	o := origins{allowed: map[string]bool{}}
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "*" {
			o.any = true
			continue
		}
		n, ok := normalizeOrigin(s)
		if !ok {
			return origins{}, fmt.Errorf("allowed origin %q: want scheme://host[:port], e.g. https://app.example.com", s)
		}
		o.allowed[n] = true
	}
	return o, nil
}

func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(s, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// allows reports whether a request from origin to host may proceed.
func (o origins) allows(origin, host string) bool {
	if origin == "" || o.any {
		return true
	}
	n, ok := normalizeOrigin(origin)
	if !ok {
		return false // "null" (sandboxed pages, file://) and garbage
	}
	if o.allowed[n] {
		return true
	}
	u, _ := url.Parse(n)
	return strings.EqualFold(u.Host, host)
}

// exposedHeaders are the response headers a browser page may read.
const exposedHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, WWW-Authenticate"

// setCORS lets an allowed page read the response.
func setCORS(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", exposedHeaders)
}

// preflight answers a CORS preflight. The requested headers are echoed
// because MCP clients send per-tool Mcp-Param-* headers that no fixed list
// can name; Authorization must be named explicitly, a wildcard does not
// cover it.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Allow", allowedMethods)
	if r.Header.Get("Origin") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" && validHeaderList(req) {
			h.Set("Access-Control-Allow-Headers", req)
		}
		h.Set("Access-Control-Max-Age", "600")
		h.Add("Vary", "Access-Control-Request-Headers")
	}
	w.WriteHeader(http.StatusNoContent)
}

func validHeaderList(s string) bool {
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return false
		}
		for _, c := range name {
			if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}

// rebinding reports a request that reached a loopback listener under a
// foreign Host name: a DNS-rebinding attack from a web page. The SDK's
// handlers check the same and keep doing so; checking here first refuses
// it with a JSON-RPC body, before any budget is spent.
func rebinding(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && local != nil && loopbackAddr(local) && !isLoopback(r.Host)
}

// loopbackAddr reports whether a listener's address is a loopback one: a
// TCP address's IP read as it is (formatting and parsing it again was most
// of the check's cost, on every request), any other by its string.
func loopbackAddr(a net.Addr) bool {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.IsLoopback()
	}
	return isLoopback(a.String())
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
