// Package clientnet names the network a client address belongs to, for
// limits counted per address: one person or host on IPv6 usually holds a
// whole /64 and can pick any address in it, so counting full IPv6
// addresses would give each of them 2^64 budgets.
//
// IPv6 addresses that carry an IPv4 address count as that IPv4 address:
// IPv4-mapped (::ffff:a.b.c.d); NAT64 (64:ff9b::/96, and the local-use
// 64:ff9b:1::/48 in its /96 form: the IPv4 address in the last 32 bits),
// where a /64 would put every IPv4 host behind the translator together;
// 6to4 (2002::/16, the IPv4 address in bits 16 to 47), where one IPv4 host
// holds a whole /48 of /64s; and Teredo (2001::/32, the client's IPv4
// address in the last 32 bits, each bit inverted).
package clientnet

import "net/netip"

// IPv6Bits and IPv4NetworkBits are the prefix lengths Key and Network use.
const (
	IPv6Bits        = 64
	IPv4NetworkBits = 24
)

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// Key is what a per-address limit counts: an IPv4 address as it is, an
// IPv6 address by its /64 ("2001:db8:1:2::/64"), an IPv6 address that
// carries an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo) as that IPv4
// address. Anything that is not an address (a test's label, an empty
// string) is returned unchanged.
func Key(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = carried(a)
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, IPv6Bits).Masked().String()
}

// Network is the wider network a share of a global resource is counted
// by: an IPv4 address's /24 (also of an IPv4 address an IPv6 address
// carries), an IPv6 address's /64. It also takes what Key returns.
func Network(addr string) string {
	if p, err := netip.ParsePrefix(addr); err == nil {
		addr = p.Addr().String()
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = carried(a)
	bits := IPv6Bits
	if a.Is4() {
		bits = IPv4NetworkBits
	}
	return netip.PrefixFrom(a, bits).Masked().String()
}

// carried is the IPv4 address an IPv6 address carries, or the address
// itself (without its zone).
func carried(a netip.Addr) netip.Addr {
	a = a.Unmap().WithZone("")
	if !a.Is6() {
		return a
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), nat64Local.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	case teredo.Contains(a):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
	}
	return a
}
