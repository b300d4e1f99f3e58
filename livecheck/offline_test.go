package livecheck_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"syscall"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/livecheck"
	"github.com/mcpdir/mcpdir/netguard"
)

// TestRunWithoutNetworkRecordsNothing: on a machine with no network every
// check fails before reaching a server (no route, or a name that does not
// resolve). Run records none of them, so no server is marked down for the
// machine's fault, and says so in its summary; once one check reaches the
// network, the others' failures are the servers' and are recorded. No
// traffic leaves: the guard's resolver and dialer are the test's.
func TestRunWithoutNetworkRecordsNothing(t *testing.T) {
	up := streamable(t) // on loopback (it answers a Host not its own 403: reached all the same)
	upAddr := netip.MustParseAddrPort(up[len("http://"):])
	public := netip.MustParseAddr("93.184.215.14")
	guard := func(network bool) *netguard.Guard {
		return netguard.New(netguard.Options{
			Resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
				if host == "up.example" {
					return []netip.Addr{public}, nil
				}
				if host == "unresolved.example" || !network {
					return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
				}
				return []netip.Addr{public}, nil
			},
			Dial: func(ctx context.Context, nw string, ap netip.AddrPort) (net.Conn, error) {
				if !network {
					return nil, &net.OpError{Op: "dial", Net: nw, Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}
				}
				var d net.Dialer
				return d.DialContext(ctx, nw, upAddr.String())
			},
		})
	}
	remote := func(host string) mcpdir.Remote {
		return mcpdir.Remote{URL: fmt.Sprintf("http://%s:%d/", host, upAddr.Port()), Transport: mcpdir.TransportStreamableHTTP}
	}
	var offline []livecheck.Target
	for i, h := range []string{"a.example", "b.example", "c.example", "unresolved.example"} {
		offline = append(offline, livecheck.Target{ID: fmt.Sprint(i), Remote: remote(h)})
	}
	// The resolver answers (a cache, /etc/hosts) but nothing is routed.
	c := &livecheck.Checker{Guard: guard(false), Timeout: testTimeout, Version: "test"}
	store := &memStore{checks: map[string]*mcpdir.LiveCheck{}}
	sum := c.Run(t.Context(), store, offline, slog.New(slog.DiscardHandler), nil)
	if len(store.checks) != 0 || sum[livecheck.NotRecorded] != 4 || sum[mcpdir.LiveDown] != 4 {
		t.Fatalf("without a network: recorded %v, summary %v", store.checks, sum)
	}
	one := c.Check(t.Context(), remote("a.example"))
	if !one.Unreachable || one.Status != mcpdir.LiveDown {
		t.Fatalf("a check with no route: %+v", one)
	}

	// With a network, a name that does not resolve is the server's fault.
	c = &livecheck.Checker{Guard: guard(true), Timeout: testTimeout, Version: "test"}
	sum = c.Run(t.Context(), store, append(offline[3:], livecheck.Target{ID: "up", Remote: remote("up.example")}), slog.New(slog.DiscardHandler), nil)
	if len(store.checks) != 2 || store.checks["3"].Status != mcpdir.LiveDown || store.checks["up"].Status == mcpdir.LiveDown || sum[livecheck.NotRecorded] != 0 {
		t.Fatalf("with a network: recorded %+v, summary %v", store.checks, sum)
	}
	// One target alone is recorded whatever its result.
	store = &memStore{checks: map[string]*mcpdir.LiveCheck{}}
	c.Run(t.Context(), store, offline[3:], slog.New(slog.DiscardHandler), nil)
	if len(store.checks) != 1 {
		t.Fatalf("one target: recorded %v", store.checks)
	}
}
