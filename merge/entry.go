package merge

import (
	"net/url"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// Merge makes one entry of a group's records, taken in the group's order
// (owner first, as Resolve gives them):
//
//   - the group's id; the owner's name, source, origin, extra fields and
//     admin mark;
//   - identity only from the owners (the members whose claims are
//     verified, or the owner alone): packages (one per PackageKey; one of
//     unknown type is dropped beside a known one of the same identifier),
//     remotes (one per URL), transports, the official and verified marks,
//     and tools (every record's only when the owners have none);
//   - of the rest (title, description, website, repository, author,
//     license, version), the first that a record gives, owner first; the
//     brief that says most (the informative one of the most words; empty
//     briefs and package templates' such as "Add your description here"
//     only when there is no other): a registry's seed brief is often a line
//     where the package's says what it does; every record's tags and
//     categories;
//   - the greatest popularity, not the sum: the same package's downloads
//     must not count twice;
//   - created when the id's record was, updated when the last record was;
//   - the live check of the endpoint the entry is checked at, whichever
//     record it was made for;
//   - the other records as Aliases, with those they carried, and which
//     record gave which field as Provenance.
//
// Merge of a merged entry alone gives it back unchanged. It changes none of
// the records.
func Merge(g Group) *mcpdir.Entry {
	if len(g.Members) == 0 {
		return nil
	}
	ms := g.Members
	c := *ms[0]
	e := &c
	e.ID = cmpOr(g.ID, idOf(ms[0]))
	if len(ms) == 1 {
		return e
	}
	owners := ms[:min(max(g.Owners, 1), len(ms))]
	for _, m := range ms {
		if idOf(m) == e.ID {
			e.CreatedAt = m.CreatedAt
		}
	}
	gave := make([][]string, len(ms)) // the fields each member gave
	give := func(i int, field string) {
		if !slices.Contains(gave[i], field) {
			gave[i] = append(gave[i], field)
		}
	}
	give(0, "name")
	text := func(field string, f func(*mcpdir.Entry) string) string {
		for i, m := range ms {
			if s := f(m); s != "" {
				give(i, field)
				return s
			}
		}
		return ""
	}
	e.Title = text("title", func(m *mcpdir.Entry) string { return m.Title })
	e.Description = text("description", func(m *mcpdir.Entry) string { return m.Description })
	e.WebsiteURL = text("website_url", func(m *mcpdir.Entry) string { return m.WebsiteURL })
	e.RepositoryURL = text("repository_url", func(m *mcpdir.Entry) string { return m.RepositoryURL })
	e.AuthorName = text("author_name", func(m *mcpdir.Entry) string { return m.AuthorName })
	e.License = text("license", func(m *mcpdir.Entry) string { return m.License })
	e.Version = text("version", func(m *mcpdir.Entry) string { return m.Version })
	var by int
	if e.Brief, by = brief(ms); by >= 0 {
		give(by, "brief")
	}
	e.Tags = union(ms, func(m *mcpdir.Entry) []string { return m.Tags }, strings.ToLower)
	e.Categories = union(ms, func(m *mcpdir.Entry) []string { return m.Categories }, strings.ToLower)
	e.Transports = union(owners, func(m *mcpdir.Entry) []string { return m.Transports }, nil)
	e.Packages = packages(owners)
	e.Remotes = remotes(owners)
	toolsFrom := owners
	if e.Tools = tools(owners); len(e.Tools) == 0 {
		e.Tools, toolsFrom = tools(ms), ms
	}
	e.Extra = ms[0].Extra // never changed in place: shared
	e.IsOfficial, e.IsVerified, e.Popularity = false, false, 0
	for i, m := range ms {
		if i < len(owners) {
			e.IsOfficial = e.IsOfficial || m.IsOfficial
			e.IsVerified = e.IsVerified || m.IsVerified
			if len(m.Packages) > 0 {
				give(i, "packages")
			}
			if len(m.Remotes) > 0 {
				give(i, "remotes")
			}
		}
		if i < len(toolsFrom) && len(m.Tools) > 0 {
			give(i, "tools")
		}
		if m.Popularity > e.Popularity {
			e.Popularity, by = m.Popularity, i
		}
		if m.UpdatedAt.After(e.UpdatedAt) {
			e.UpdatedAt = m.UpdatedAt
		}
	}
	if e.Popularity > 0 {
		give(by, "popularity")
	}
	// The live check of the endpoint the entry is checked at, whichever
	// record it was made for.
	e.Live = nil
	if r, ok := e.LiveRemote(); ok {
		for _, m := range ms {
			if m.Live != nil && m.Live.URL == r.URL {
				e.Live = m.Live
				break
			}
		}
	}
	e.Aliases = aliases(ms, e.ID)
	e.Provenance = nil
	for i, m := range ms {
		if len(gave[i]) > 0 {
			e.Provenance = append(e.Provenance, mcpdir.Provenance{Fields: order(gave[i]), Label: mcpdir.SourceLabel(m.Source, m.Origin),
				Source: cmpOr(m.Source, "starter"), Origin: m.Origin, Record: idOf(m), At: m.UpdatedAt})
		}
	}
	return e
}

// order is fields in the order provenance lists them.
func order(fields []string) []string {
	var out []string
	for _, f := range mcpdir.ProvenanceFields {
		if slices.Contains(fields, f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

// templates are briefs that package templates write (uv init, the PyPA
// sample project) and name reservations: they say nothing of the server.
var templates = []string{
	"add your description here",
	"a small example package",
	"this package is reserved",
	"this is a reserved placeholder package to mitigate dependency confusion risks",
}

// brief is the brief that says most, and the member that gave it (-1:
// none did).
func brief(ms []*mcpdir.Entry) (string, int) {
	best, by := "", -1
	for i, m := range ms {
		if informative(m.Brief, m.Name) && len(strings.Fields(m.Brief)) > len(strings.Fields(best)) {
			best, by = m.Brief, i
		}
	}
	if best != "" {
		return best, by
	}
	for i, m := range ms {
		if m.Brief != "" {
			return m.Brief, i
		}
	}
	return "", -1
}

func informative(brief, name string) bool {
	b := strings.TrimRight(strings.TrimSpace(brief), ".! ")
	return b != "" && !strings.EqualFold(b, name) && !slices.ContainsFunc(templates, func(t string) bool { return strings.EqualFold(b, t) })
}

// union is every record's values, first spelling kept, without the
// duplicates fold (if any) finds.
func union(ms []*mcpdir.Entry, f func(*mcpdir.Entry) []string, fold func(string) string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		for _, s := range f(m) {
			k := s
			if fold != nil {
				k = fold(s)
			}
			if !seen[k] {
				seen[k] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// packageID is a package's identity for dedupe: its PackageKey, or for
// one of unknown type its type and identifier as given.
func packageID(p mcpdir.Package) (key string, known bool) {
	if k := PackageKey(p.RegistryType, p.Identifier); k != "" {
		return k, true
	}
	return "?" + strings.ToLower(p.RegistryType) + ":" + strings.ToLower(p.Identifier), false
}

func packages(ms []*mcpdir.Entry) []mcpdir.Package {
	var out []mcpdir.Package
	var keys []string // of out
	var unknown bool
	for _, m := range ms {
		for _, p := range m.Packages {
			k, known := packageID(p)
			unknown = unknown || !known
			if i := slices.Index(keys, k); i >= 0 {
				q := &out[i]
				q.Version = cmpOr(q.Version, p.Version)
				q.Transport = cmpOr(q.Transport, p.Transport)
				q.RuntimeHint = cmpOr(q.RuntimeHint, p.RuntimeHint)
				continue
			}
			keys = append(keys, k)
			out = append(out, p)
		}
	}
	if !unknown {
		return out
	}
	// The registry's seed types a third of its packages "unknown"; beside
	// the same identifier with a type, such a package is noise.
	typed := map[string]bool{}
	for i, p := range out {
		if keys[i][0] != '?' {
			typed[strings.ToLower(strings.TrimSpace(p.Identifier))] = true
		}
	}
	kept := out[:0]
	for i, p := range out {
		if keys[i][0] != '?' || !typed[strings.ToLower(strings.TrimSpace(p.Identifier))] {
			kept = append(kept, p)
		}
	}
	return kept
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// remoteKey is a remote's URL as servers compare it: scheme and host are
// case-insensitive, a trailing slash says nothing.
func remoteKey(s string) string {
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		u.Scheme, u.Host = strings.ToLower(u.Scheme), strings.ToLower(u.Host)
		s = u.String()
	}
	return strings.TrimRight(s, "/")
}

func remotes(ms []*mcpdir.Entry) []mcpdir.Remote {
	var out []mcpdir.Remote
	at := map[string]int{}
	for _, m := range ms {
		for _, r := range m.Remotes {
			k := remoteKey(r.URL)
			if i, ok := at[k]; ok {
				out[i].Transport = cmpOr(out[i].Transport, r.Transport)
				continue
			}
			at[k] = len(out)
			out = append(out, r)
		}
	}
	return out
}

func tools(ms []*mcpdir.Entry) []mcpdir.Tool {
	var out []mcpdir.Tool
	at := map[string]int{}
	for _, m := range ms {
		for _, t := range m.Tools {
			if i, ok := at[t.Name]; ok {
				out[i].Description = cmpOr(out[i].Description, t.Description)
				continue
			}
			at[t.Name] = len(out)
			out = append(out, t)
		}
	}
	return out
}

// aliases are the records other than the canonical one, and those they
// carried, in id order.
func aliases(ms []*mcpdir.Entry, id string) []mcpdir.Alias {
	var out []mcpdir.Alias
	seen := map[string]bool{id: true}
	add := func(a mcpdir.Alias) {
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, a)
		}
	}
	for _, m := range ms {
		add(mcpdir.Alias{ID: idOf(m), Name: m.Name, Source: m.Source, Origin: m.Origin, WebsiteURL: m.WebsiteURL, RepositoryURL: m.RepositoryURL})
	}
	for _, m := range ms {
		for _, a := range m.Aliases {
			add(a)
		}
	}
	slices.SortFunc(out, func(a, b mcpdir.Alias) int { return strings.Compare(a.ID, b.ID) })
	return out
}
