package oauth

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
)

// Hosts are shown to people in their ASCII (punycode) form, the name a
// browser goes to: a Unicode host can look like another ("аpple.com" with
// a Cyrillic а, or "аррӏе.com" all Cyrillic but for its Latin "com"). The
// Unicode form is shown beside it only when the whole name is written in
// one script ("пример.рф", "bücher.example"), where it helps people read
// it without letting scripts be mixed into a look-alike.

// asciiHost returns a host (with its port, if any) in its ASCII form, and
// false when it is not a valid international domain name.
func asciiHost(hostport string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	if isASCII(host) && !strings.Contains(strings.ToLower(host), "xn--") || strings.HasPrefix(host, "[") || net.ParseIP(host) != nil {
		return hostport, isASCII(hostport)
	}
	a, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", false
	}
	if port != "" {
		return net.JoinHostPort(a, port), true
	}
	return a, true
}

// unicodeHost is the Unicode form of an ASCII host to show beside it: ""
// when it is the same, or when it mixes scripts.
func unicodeHost(ascii string) string {
	host, port, err := net.SplitHostPort(ascii)
	if err != nil {
		host, port = ascii, ""
	}
	u, err := idna.Lookup.ToUnicode(host)
	if err != nil || u == host {
		return ""
	}
	if !singleScript(u) {
		return ""
	}
	if port != "" {
		return u + ":" + port
	}
	return u
}

// singleScript reports whether a name's letters all belong to one script
// (digits, hyphens and dots, in the Common script, go with any).
func singleScript(name string) bool {
	var script *unicode.RangeTable
	for _, r := range name {
		if r < 0x80 && !unicode.IsLetter(r) || unicode.In(r, unicode.Common, unicode.Inherited) {
			continue
		}
		if script != nil && unicode.Is(script, r) {
			continue
		}
		if script != nil {
			return false
		}
		for _, t := range unicode.Scripts {
			if unicode.Is(t, r) {
				script = t
				break
			}
		}
		if script == nil {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// shownHost is how a redirect URI's destination is named for people: its
// host in ASCII, or its scheme for an app's private-use scheme; and the
// Unicode form to show beside it, if any.
func shownHost(redirect string) (ascii, unicodeForm string) {
	u, err := url.Parse(redirect)
	if err != nil {
		return "", ""
	}
	if u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return u.Scheme + ":", ""
	}
	a, ok := asciiHost(u.Host)
	if !ok {
		return strings.Trim(strconv.QuoteToASCII(u.Host), `"`), ""
	}
	return a, unicodeHost(a)
}

// hostText names a redirect URI's destination in one string of text.
func hostText(redirect string) string {
	a, u := shownHost(redirect)
	if u != "" {
		return a + " (" + u + ")"
	}
	return a
}
