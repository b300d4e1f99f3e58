package clientnet

import "testing"

func TestKeyAndNetwork(t *testing.T) {
	for _, c := range []struct{ in, key, network string }{
		{"192.0.2.7", "192.0.2.7", "192.0.2.0/24"},
		{"::ffff:192.0.2.7", "192.0.2.7", "192.0.2.0/24"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64", "fe80::/64"},
		{"2001:db8:1:2::/64", "2001:db8:1:2::/64", "2001:db8:1:2::/64"},
		{"test", "test", "test"},
		{"", "", ""},
	} {
		if got := Key(c.in); got != c.key {
			t.Errorf("Key(%q) = %q, want %q", c.in, got, c.key)
		}
		if got := Network(c.in); got != c.network {
			t.Errorf("Network(%q) = %q, want %q", c.in, got, c.network)
		}
	}
}

// Issue 33, finding 6: IPv6 addresses that carry an IPv4 address count as
// that IPv4 address, whatever /64 they are in: NAT64 (the well-known
// 64:ff9b::/96 and the local-use 64:ff9b:1::/48, the IPv4 address in the
// last 32 bits), 6to4 (2002::/16, the IPv4 address in bits 16 to 47) and
// Teredo (2001::/32, the client's IPv4 address in the last 32 bits, each
// bit inverted).
func TestKeyOfIPv6AddressesCarryingIPv4(t *testing.T) {
	for _, c := range []struct{ in, key, network string }{
		// NAT64: two hosts behind one translator are two addresses, not one /64.
		{"64:ff9b::192.0.2.7", "192.0.2.7", "192.0.2.0/24"},
		{"64:ff9b::c000:208", "192.0.2.8", "192.0.2.0/24"},
		{"64:ff9b::198.51.100.1", "198.51.100.1", "198.51.100.0/24"},
		{"64:ff9b:1:abcd::203.0.113.9", "203.0.113.9", "203.0.113.0/24"},
		{"64:ff9b:1::203.0.113.10", "203.0.113.10", "203.0.113.0/24"},
		// 6to4: every /64 of one IPv4 host's /48 is that host.
		{"2002:c000:207::1", "192.0.2.7", "192.0.2.0/24"},
		{"2002:c000:207:1::1", "192.0.2.7", "192.0.2.0/24"},
		{"2002:c000:207:ffff:1:2:3:4", "192.0.2.7", "192.0.2.0/24"},
		{"2002:cb00:7109::1", "203.0.113.9", "203.0.113.0/24"},
		// Teredo: server 198.51.100.1, flags 8000, port 63ff (1024 inverted),
		// client 192.0.2.45 inverted (3fff:fdd2).
		{"2001:0:c633:6401:8000:fbff:3fff:fdd2", "192.0.2.45", "192.0.2.0/24"},
		{"2001:0:c633:6401:0:f227:3fff:fdd2", "192.0.2.45", "192.0.2.0/24"},
		{"2001:0:c633:6401:8000:fbff:3fff:fdd3", "192.0.2.44", "192.0.2.0/24"},
		// Look-alikes that carry nothing: a /64 as before.
		{"64:ff9b:2::1", "64:ff9b:2::/64", "64:ff9b:2::/64"},
		{"2001:1::1", "2001:1::/64", "2001:1::/64"},
		{"2003:c000:207::1", "2003:c000:207::/64", "2003:c000:207::/64"},
		// What Key returns, given to Network.
		{"192.0.2.45", "192.0.2.45", "192.0.2.0/24"},
	} {
		if got := Key(c.in); got != c.key {
			t.Errorf("Key(%q) = %q, want %q", c.in, got, c.key)
		}
		if got := Network(c.in); got != c.network {
			t.Errorf("Network(%q) = %q, want %q", c.in, got, c.network)
		}
	}
}
