package merge

import (
	"net/url"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// The kinds of evidence, strongest first: Groups weighs them in this order.
const (
	byID         = iota // the same id (an alias's included)
	byName              // the same server name
	byPackage           // the same package, declared or the website's page
	byScope             // io.github.x/y beside the npm package @x/y
	byRepository        // the same repository, when it holds one server
	stages
)

var stageNames = [stages]string{"id", "name", "package", "scope", "repository"}

// PackageKey is the identity of a package: its registry type and its
// identifier as the registry compares them (npm and most registries: case
// folded; PyPI: PEP 503; OCI: without tag, digest or the Docker Hub host).
// It is "" when the package says nothing certain: an unknown registry type
// (the registry's 2025 seed labels a third of its packages "unknown", some
// wrongly) or no identifier.
func PackageKey(registryType, identifier string) string {
	t := strings.ToLower(strings.TrimSpace(registryType))
	id := strings.ToLower(strings.TrimSpace(identifier))
	switch t {
	case "", "unknown":
		return ""
	case "docker":
		t = "oci"
	case "pip":
		t = "pypi"
	}
	switch t {
	case "npm":
		// A version spec (@x/y@1.2, x@1.2) is not part of the name.
		if i := strings.LastIndexByte(id, '@'); i > 0 {
			id = id[:i]
		}
	case "pypi":
		id = pep503(id)
	case "oci":
		if i := strings.IndexByte(id, '@'); i >= 0 {
			id = id[:i] // digest
		}
		if i := strings.LastIndexByte(id, ':'); i > strings.LastIndexByte(id, '/') {
			id = id[:i] // tag
		}
		for _, p := range []string{"docker.io/", "index.docker.io/", "registry-1.docker.io/"} {
			id = strings.TrimPrefix(id, p)
		}
		id = strings.TrimPrefix(id, "library/")
	}
	if id == "" {
		return ""
	}
	return t + ":" + id
}

// pep503 normalizes a lower-cased PyPI name: runs of -, _ and . are one -.
func pep503(s string) string {
	if !strings.ContainsAny(s, "_.") && !strings.Contains(s, "--") && !strings.HasPrefix(s, "-") && !strings.HasSuffix(s, "-") {
		return s // already normal, as most names are
	}
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// pagePackage is the package whose registry page u is (npmjs.com/package/X,
// pypi.org/project/X): the package corpus's records are known by it.
func pagePackage(u string) string {
	host, path := splitURL(u)
	var seg []string
	switch host {
	case "npmjs.com":
		if seg = segments(path); len(seg) >= 2 && seg[0] == "package" {
			if strings.HasPrefix(seg[1], "@") && len(seg) >= 3 {
				return PackageKey("npm", seg[1]+"/"+seg[2])
			}
			return PackageKey("npm", seg[1])
		}
	case "pypi.org", "pypi.python.org":
		if seg = segments(path); len(seg) >= 2 && (seg[0] == "project" || seg[0] == "pypi") {
			return PackageKey("pypi", seg[1])
		}
	}
	return ""
}

// splitURL is a web URL's host, case-folded and without www., and its
// path, unescaped. It is not url.Parse: grouping reads every record's
// URLs, most of which are nothing to it.
func splitURL(u string) (host, path string) {
	_, rest, ok := strings.Cut(strings.TrimSpace(u), "://")
	if !ok {
		return "", ""
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	host, path = rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if strings.IndexByte(path, '%') >= 0 {
		if p, err := url.PathUnescape(path); err == nil {
			path = p
		}
	}
	return strings.TrimPrefix(strings.ToLower(host), "www."), path
}

func segments(path string) []string {
	var out []string
	for s := range strings.SplitSeq(path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// repository is where a URL points in a code repository: the repository
// (host/owner/repo, case folded, without .git) and, for a link into it
// (github.com/o/r/tree/main/src/x), the folder too. Only github.com is
// read for its owner/repo shape; other hosts' URLs are kept whole, so that
// they match only themselves. A website is read only on github.com: on
// other hosts it is a home page.
func repository(u string, website bool) (repo, folder string) {
	host, path := splitURL(u)
	if host == "" || website && host != "github.com" {
		return "", ""
	}
	seg := segments(strings.ToLower(path))
	if host != "github.com" {
		if len(seg) == 0 {
			return "", ""
		}
		seg[len(seg)-1] = strings.TrimSuffix(seg[len(seg)-1], ".git")
		return host + "/" + strings.Join(seg, "/"), ""
	}
	if len(seg) < 2 {
		return "", ""
	}
	repo = host + "/" + seg[0] + "/" + strings.TrimSuffix(seg[1], ".git")
	// tree/<ref>/<folder>… or blob/<ref>/<file>…: the ref is dropped,
	// since main and master name the same folder.
	if len(seg) > 4 && (seg[2] == "tree" || seg[2] == "blob") {
		folder = repo + "/" + strings.Join(seg[4:], "/")
	}
	return repo, folder
}

// registryStyle reports whether name has the registry's form: a
// reverse-DNS namespace, a slash and a name (io.github.owner/server).
// Such a name is globally one server's, whatever the record's source; a
// package name never has this form (npm's scopes start with @, PyPI has no
// slash).
func registryStyle(name string) bool {
	ns, n, ok := strings.Cut(name, "/")
	if !ok || n == "" || ns == "" || !strings.Contains(ns, ".") || ns[0] == '.' {
		return false
	}
	for _, r := range ns {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return false
		}
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// serverName is the name that identifies a record's server across
// sources: a registry record's name, or a name of the registry's form; ""
// for a package's or a free-form name, which many unrelated records share.
func serverName(name, source string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if source == mcpdir.SourceRegistry || registryStyle(name) {
		return name
	}
	return ""
}

// facet is what one record says of itself that may link it: an entry's
// own, or an alias's (a merged entry stands for the records merged into
// it, and links as they would).
type facet struct{ id, name, source, website, repository string }

func facets(e *mcpdir.Entry) []facet {
	out := []facet{{idOf(e), e.Name, e.Source, e.WebsiteURL, e.RepositoryURL}}
	for _, a := range e.Aliases {
		out = append(out, facet{a.ID, a.Name, a.Source, a.WebsiteURL, a.RepositoryURL})
	}
	return out
}

// scopeGuess is the npm package that io.github.owner/name would publish:
// @owner/name. It is only a guess (the registry verified the GitHub
// account, nobody verified the npm scope), so it is made only for a record
// that declares no npm package of its own: a declared list is the
// registry's verified word and a differently named @owner/name beside it
// may be another server.
func scopeGuess(e *mcpdir.Entry, name string) string {
	rest, ok := strings.CutPrefix(name, "io.github.")
	if !ok || !registryStyle(name) {
		return ""
	}
	for _, p := range e.Packages {
		if k := PackageKey(p.RegistryType, p.Identifier); strings.HasPrefix(k, "npm:") {
			return ""
		}
	}
	return PackageKey("npm", "@"+rest)
}

// idOf is an entry's id, or the one a store would give a record without one.
func idOf(e *mcpdir.Entry) string {
	if e.ID != "" {
		return e.ID
	}
	return mcpdir.EntryID(e.NaturalKey())
}
