package merge

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// Merge makes one entry of a group's records, in rank order (the canonical
// first, whatever the order of g.Members):
//
//   - the canonical record's id, name, source, extra fields and admin mark;
//   - of the rest (title, description, website, repository, author, license,
//     version), the first that a record gives, in rank order; the brief
//     that says most (the informative one of the most words; empty briefs
//     and package templates' such as "Add your description here" only when
//     there is no other): a registry's seed brief is often a line where
//     the package's says what it does;
//   - every record's packages (one per PackageKey; one of unknown type is
//     dropped beside a known one of the same identifier), remotes (one per
//     URL), tools (one per name), tags, categories and transports;
//   - the greatest popularity, not the sum: the same package's downloads
//     must not count twice;
//   - official or verified if any record is; created when the canonical
//     record was (the entry is the canonical's, and its rank stays), updated
//     when the last record was;
//   - the live check of the endpoint the entry is checked at, whichever
//     record it was made for;
//   - the other records as Aliases, with those they carried.
//
// Merge of a merged entry alone gives it back unchanged. It changes none of
// the records.
func Merge(g Group) *mcpdir.Entry {
	if len(g.Members) == 0 {
		return nil
	}
	ms := ranked(g.Members)
	c := *ms[0]
	e := &c
	e.ID = idOf(ms[0])
	text := func(f func(*mcpdir.Entry) string) string {
		for _, m := range ms {
			if s := f(m); s != "" {
				return s
			}
		}
		return ""
	}
	e.Title = text(func(m *mcpdir.Entry) string { return m.Title })
	e.Brief = brief(ms)
	e.Description = text(func(m *mcpdir.Entry) string { return m.Description })
	e.WebsiteURL = text(func(m *mcpdir.Entry) string { return m.WebsiteURL })
	e.RepositoryURL = text(func(m *mcpdir.Entry) string { return m.RepositoryURL })
	e.AuthorName = text(func(m *mcpdir.Entry) string { return m.AuthorName })
	e.License = text(func(m *mcpdir.Entry) string { return m.License })
	e.Version = text(func(m *mcpdir.Entry) string { return m.Version })
	e.Tags = union(ms, func(m *mcpdir.Entry) []string { return m.Tags }, strings.ToLower)
	e.Categories = union(ms, func(m *mcpdir.Entry) []string { return m.Categories }, strings.ToLower)
	e.Transports = union(ms, func(m *mcpdir.Entry) []string { return m.Transports }, nil)
	e.Packages = packages(ms)
	e.Remotes = remotes(ms)
	e.Tools = tools(ms)
	e.Extra = maps.Clone(ms[0].Extra)
	for _, m := range ms {
		e.IsOfficial = e.IsOfficial || m.IsOfficial
		e.IsVerified = e.IsVerified || m.IsVerified
		e.Popularity = max(e.Popularity, m.Popularity)
		if m.UpdatedAt.After(e.UpdatedAt) {
			e.UpdatedAt = m.UpdatedAt
		}
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
	return e
}

// ranked is ms in rank order, copied if it has more than one record.
func ranked(ms []*mcpdir.Entry) []*mcpdir.Entry {
	if len(ms) == 1 {
		return ms
	}
	type item struct {
		k rankKey
		e *mcpdir.Entry
	}
	items := make([]item, len(ms))
	for i, m := range ms {
		items[i] = item{newRankKey(m), m}
	}
	slices.SortStableFunc(items, func(a, b item) int { return compareRanked(&a.k, &b.k, a.e, b.e) })
	out := make([]*mcpdir.Entry, len(ms))
	for i, it := range items {
		out[i] = it.e
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

func brief(ms []*mcpdir.Entry) string {
	best := ""
	for _, m := range ms {
		if informative(m.Brief, m.Name) && len(strings.Fields(m.Brief)) > len(strings.Fields(best)) {
			best = m.Brief
		}
	}
	if best != "" {
		return best
	}
	for _, m := range ms {
		if m.Brief != "" {
			return m.Brief
		}
	}
	return ""
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
		add(mcpdir.Alias{ID: idOf(m), Name: m.Name, Source: m.Source, WebsiteURL: m.WebsiteURL, RepositoryURL: m.RepositoryURL})
	}
	for _, m := range ms {
		for _, a := range m.Aliases {
			add(a)
		}
	}
	slices.SortFunc(out, func(a, b mcpdir.Alias) int { return strings.Compare(a.ID, b.ID) })
	return out
}
