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
