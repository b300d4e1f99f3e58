package oauth

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Hosts are shown to people in their ASCII (punycode) form only, the name
// a browser goes to: a Unicode host can look like another, whether it
// mixes scripts ("аpple.com" with a Cyrillic а) or not ("ɡithub.com" with
// U+0261, "gıthub.com" with a dotless i, "paypaǀ.com" with U+01C0). A host
// whose letters are not all ASCII (one with an xn-- label) comes with a
// plain warning that it may imitate another.

// notASCIIWarning is that warning, in running text.
const notASCIIWarning = "this address uses letters that are not plain ASCII: it may imitate another"

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

// hasNonASCIILetters reports whether an ASCII host stands for one whose
// letters are not all ASCII: whether a label is an A-label (xn--…).
func hasNonASCIILetters(ascii string) bool {
	return strings.Contains("."+strings.ToLower(ascii), ".xn--")
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
// host in ASCII, or its scheme for an app's private-use scheme; and
// whether the host's letters are not all ASCII (notASCIIWarning).
func shownHost(redirect string) (ascii string, notASCII bool) {
	u, err := url.Parse(redirect)
	if err != nil {
		return "", false
	}
	if u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return u.Scheme + ":", false
	}
	a, ok := asciiHost(u.Host)
	if !ok {
		return strings.Trim(strconv.QuoteToASCII(u.Host), `"`), !isASCII(u.Host)
	}
	return a, hasNonASCIILetters(a)
}

// appScheme is how the app a private-use redirect URI opens is named:
// "cursor://" or "com.example.app:", the links the browser hands to the
// app registered for them; "" for http and https.
func appScheme(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme == "" || u.Scheme == "http" || u.Scheme == "https" {
		return ""
	}
	if strings.HasPrefix(strings.ToLower(redirect), strings.ToLower(u.Scheme)+"://") {
		return u.Scheme + "://"
	}
	return u.Scheme + ":"
}

// hostText names a redirect URI's destination in one string of text.
func hostText(redirect string) string {
	if app := appScheme(redirect); app != "" {
		return "the app registered for " + app + " links"
	}
	a, notASCII := shownHost(redirect)
	if notASCII {
		return a + " (" + notASCIIWarning + ")"
	}
	return a
}
