package oauth

import (
	"net/url"
	"strings"
)

// Installer links (issue 33, finding 4): MCP clients and editors install
// servers and extensions from links (cursor://anysphere.cursor-deeplink/
// mcp/install?config=…, vscode:mcp/install?…, vscode:extension/…), and a
// redirect URI is where the consent page's Allow and Deny send the
// browser. A client registering such a link would have the directory's
// own page launch an installer with a command line of the client's
// choosing. They are refused as redirect URIs, registered or in metadata
// documents, and not followed for clients registered before the rule.

// installerWords are what a redirect URI's path segments and query keys
// (and, for an app's private-use scheme, its host and query values) may
// not contain: they name an installer.
var installerWords = []string{"install", "deeplink"}

// isInstallerLink reports whether a redirect URI installs something when
// a browser opens it.
func isInstallerLink(u *url.URL) bool {
	private := u.Scheme != "" && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")
	if private && namesInstaller(u.Host) {
		return true // cursor://anysphere.cursor-deeplink/…
	}
	path := u.Path
	if u.Opaque != "" { // vscode:mcp/install?…
		path = u.Opaque
	}
	for _, seg := range strings.Split(decoded(path), "/") {
		if namesInstaller(seg) {
			return true
		}
		if private && (strings.EqualFold(seg, "extension") || strings.EqualFold(seg, "extensions")) {
			return true // vscode:extension/publisher.name opens its installer
		}
	}
	for _, kv := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if namesInstaller(decoded(k)) || private && namesInstaller(decoded(v)) {
			return true
		}
	}
	return false
}

func namesInstaller(s string) bool {
	s = strings.ToLower(s)
	for _, w := range installerWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// decoded undoes percent-encoding (and "+" for a space) until nothing
// changes, a few times at most: "%2569nstall" is "install" to an app
// that decodes twice.
func decoded(s string) string {
	for range 4 {
		d, err := url.QueryUnescape(s)
		if err != nil || d == s {
			return s
		}
		s = d
	}
	return s
}
