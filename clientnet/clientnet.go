// Package clientnet names the network a client address belongs to, for
// limits counted per address: one person or host on IPv6 usually holds a
// whole /64 and can pick any address in it, so counting full IPv6
// addresses would give each of them 2^64 budgets.
package clientnet

import "net/netip"

// IPv6Bits and IPv4NetworkBits are the prefix lengths Key and Network use.
const (
	IPv6Bits        = 64
	IPv4NetworkBits = 24
)

// Key is what a per-address limit counts: an IPv4 address as it is, an
// IPv6 address by its /64 ("2001:db8:1:2::/64"). IPv4-mapped IPv6
// addresses count as IPv4. Anything that is not an address (a test's
// label, an empty string) is returned unchanged.
func Key(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, IPv6Bits).Masked().String()
}

// Network is the wider network a share of a global resource is counted
// by: an IPv4 address's /24, an IPv6 address's /64. It also takes what
// Key returns.
func Network(addr string) string {
	if p, err := netip.ParsePrefix(addr); err == nil {
		addr = p.Addr().String()
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	bits := IPv6Bits
	if a.Is4() {
		bits = IPv4NetworkBits
	}
	return netip.PrefixFrom(a, bits).Masked().String()
}
