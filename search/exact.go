package search

import "strings"

// An entry's name typed as the query is that entry: "mcp-server-fetch"
// answers the package of that name first, above the dozens of fetch servers
// whose briefs say "fetch" as often. Names are compared folded: in any case,
// by their part after the last "/" (an npm scope or a registry namespace is
// optional: "notion-mcp-server" is "@notionhq/notion-mcp-server"'s name too),
// and with runs of "-", "_", "." and spaces read as one "-", as PyPI reads
// package names. A query is a name only where it is typed as one, words
// joined by "-", "_", "." or "/" and no space: words with spaces are words
// ("youtube transcript" asks for transcripts, not for the entry titled so
// whatever its warnings), and one word is a word (an entry named "weather"
// is no more the answer to "weather" than any weather server). The index
// keeps each entry's name as a 32-bit hash, 4 bytes an entry.

// exactKey is the hash of a name's folded form, 0 for none: a name of one
// word, or empty.
func exactKey(name string) uint32 {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	const offset, prime = 2166136261, 16777619 // FNV-1a
	h, words, sep := uint32(offset), 0, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ' || c == '\t':
			sep = true
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if sep {
			if words > 0 {
				h = (h ^ '-') * prime
			}
			words++
			sep = false
		}
		h = (h ^ uint32(c)) * prime
	}
	if words < 2 {
		return 0
	}
	return max(h, 1)
}

// queryExactKey is the exactKey of a query typed as a name, else 0.
func queryExactKey(q string) uint32 {
	q = strings.TrimSpace(q)
	if strings.ContainsAny(q, " \t\r\n") || !strings.ContainsAny(q, "-_./") {
		return 0
	}
	return exactKey(q)
}

// addressName is the name of the package or repository a pasted address
// is the page of ("https://www.npmjs.com/package/@notionhq/notion-mcp-server",
// "pypi.org/project/mcp-server-fetch/", "https://github.com/owner/repo"):
// a directory is searched by its entries' names, and an address's words
// ("https", "www", "project") are none of theirs. It is "" for anything
// else.
func addressName(q string) string {
	q = strings.TrimSpace(q)
	if !strings.Contains(q, "/") || strings.ContainsAny(q, " \t\r\n") {
		return "" // most queries: no address, nothing cut or allocated
	}
	if _, rest, ok := strings.Cut(q, "://"); ok {
		q = rest
	}
	if i := strings.IndexAny(q, "?#"); i >= 0 {
		q = q[:i]
	}
	host, path, _ := strings.Cut(q, "/")
	seg := strings.FieldsFunc(path, func(r rune) bool { return r == '/' })
	switch strings.TrimPrefix(strings.ToLower(host), "www.") {
	case "npmjs.com":
		if len(seg) >= 3 && seg[0] == "package" && strings.HasPrefix(seg[1], "@") {
			return seg[1] + "/" + seg[2]
		}
		if len(seg) >= 2 && seg[0] == "package" {
			return seg[1]
		}
	case "pypi.org":
		if len(seg) >= 2 && seg[0] == "project" {
			return seg[1]
		}
	case "github.com", "gitlab.com", "codeberg.org", "bitbucket.org":
		if len(seg) >= 2 {
			return seg[0] + "/" + strings.TrimSuffix(seg[1], ".git")
		}
	}
	return ""
}
