// Package merge makes one entry of the records that describe one server:
// the registry's io.github.x/y, the npm package @x/y it publishes, the
// starter directory's record of it, an import's. It joins records only on
// evidence the server's owner controls, so that no record can take over
// another server's entry (docs/trust.md).
//
// # The rule
//
// Resolve links two records when one of these says they are the same
// server, and a group is what the links join (union-find):
//
//  1. join: an admin declared them one server (Rules.Joins).
//  2. id: the same id (a merged entry's aliases count as its ids).
//  3. name: the same server name, case-insensitively (a registry record's
//     name, or any record's name of the registry's form namespace/name with
//     a reverse-DNS namespace, io.github.x/y), between records whose names
//     are verified (mcpdir.Trust: the starter directory's, an admin's, a
//     verifying registry's). A publisher's or an unverified registry's
//     record of a name that another source holds stays apart: a conflict.
//  4. package: the same package, by registry type and identifier as the
//     registry compares them (PackageKey: npm case-folded, PyPI by PEP 503,
//     OCI without tag or docker.io/), declared in packages or given as the
//     website (npmjs.com/package/X, pypi.org/project/X: the package
//     corpus's records). A named record links by a package only when its
//     claim of the package is verified; records without a server name (an
//     import's package records) link to it, and to each other. A package
//     that two verified names claim joins neither; one that an unverified
//     named record claims joins nothing to it: both are conflicts. A package
//     of unknown type says nothing.
//
// Two records of different server names are never one group, whatever they
// share (only an admin's join says otherwise), nor two records an admin
// split (Rules.Splits).
//
// What is only a hint is never enough: the same repository or website, the
// npm scope @x/y beside io.github.x/y, a key another directory claims. Such
// hints between groups, and the conflicts above, are Resolve's Conflicts,
// listed for admins, who resolve them with a join or a split.
//
// Links are made in that order, strongest first; within a kind, by key in
// byte order. Within one key the groups it touches are taken best ranked
// first (below), and each joins the first it may join, so that the outcome
// does not depend on the input's order even when links are refused.
//
// # Owner and id
//
// Members are ranked for the owner, whose record gives the entry its
// identity (name, remotes, packages, install): a verified record first, then
// a registry record (the registry's name is the server's public name), then
// a record named in the registry's form, then by source (admin, starter,
// import), then the oldest (earliest CreatedAt; a stored record before a
// new one), then the least id. The group's id is the oldest stored
// member's (ties broken by that rank), so that an entry's id never moves to
// a record that joined it later. Merge makes one entry of a group; the
// other records become its Aliases, by whose ids a lookup still finds it.
//
// # Reversing a merge
//
// An admin reverses a merge with a Splits pair: the two ids never share a
// group again. Resolve and Merge change no record; keep the records, and a
// split only needs Resolve run again.
package merge

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// MaxRepositoryServers is how many servers (groups) may share a repository
// for it still to be a hint that they are one: one server's records and one
// more (its package under a second name, a port to another language). Three
// or more, it is a monorepo, and says nothing.
const MaxRepositoryServers = 2

// Splits are pairs of record ids an admin declared distinct: they never
// share a group. This is how an admin reverses a merge. The same type holds
// an admin's joins (Rules.Joins).
type Splits map[[2]string]struct{}

// Add declares a and b distinct.
func (s Splits) Add(a, b string) {
	if a != b {
		s[pair(a, b)] = struct{}{}
	}
}

// Has reports whether a and b were declared distinct.
func (s Splits) Has(a, b string) bool {
	_, ok := s[pair(a, b)]
	return ok
}

func pair(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// Rules are what Resolve follows besides the records themselves.
type Rules struct {
	Splits Splits       // pairs an admin declared distinct
	Joins  Splits       // pairs an admin declared one server
	Trust  mcpdir.Trust // whose claims are verified
}

// DefaultRules are rules without an admin's splits or joins, trusting the
// official registry alone to verify.
func DefaultRules() Rules { return Rules{Trust: mcpdir.DefaultTrust()} }

// Group is the records of one server.
type Group struct {
	// ID is the group's id: its oldest stored member's (the merged
	// entry's).
	ID string
	// Members are the records, owner first, then in rank order.
	Members []*mcpdir.Entry
	// Owners is how many of the first Members may speak of the server's
	// identity (name, remotes, packages): the verified ones, or the owner
	// alone when none is. Zero reads as one.
	Owners int
	// Links are why: the links that joined the members, in the order
	// made (len(Members)-1 of them).
	Links []Link
}

// Link is one piece of evidence that joined two records.
type Link struct {
	A, B     string // the two records' ids
	Evidence string // e.g. "package npm:@x/y", "name io.github.x/y"
}

// Conflict is evidence that entries may be one server which the rule does
// not trust enough to join them: an admin's to resolve.
type Conflict struct {
	Kind    string   `json:"kind"` // name, package, scope, repository
	Key     string   `json:"key"`  // the name, package key or repository
	Reason  string   `json:"reason"`
	Entries []string `json:"entries"` // the groups' ids, in order
}

var conflictReasons = map[string]string{
	"name":       "the same server name, from a source that does not verify names",
	"package":    "the same package, listed by a record whose claim of it nobody verified, or by two servers",
	"scope":      "a registry name io.github.x/y beside the npm package @x/y: nobody checked that the two owners are one",
	"repository": "the same repository or website: a hint, never enough",
}

// Groups groups entries by server under DefaultRules and splits.
func Groups(entries []*mcpdir.Entry, split Splits) []Group {
	r := DefaultRules()
	r.Splits = split
	gs, _ := Resolve(entries, r)
	return gs
}

// Resolve groups entries by server (see the package comment for the rule)
// and lists the conflicts between groups. Every entry is in exactly one
// group; groups come in id order, conflicts by kind and key.
//
// Ids are meant to be unique, as in a store: records sharing one are taken
// as versions of one record (the last updated first). An entry without an
// id is taken to have the one a store would give it. A merged entry links
// as each record it merged would (its aliases' ids, names, websites and
// repositories), so that Resolve over Merge's entries joins nothing more.
func Resolve(entries []*mcpdir.Entry, rules Rules) ([]Group, []Conflict) {
	g := newGrouper(entries, rules)
	g.run()
	gs := g.groups()
	return gs, g.conflicts(gs)
}

// grouper is a union-find over entries' indexes with, per root, what the
// links must respect.
type grouper struct {
	entries  []*mcpdir.Entry
	ranked   []rankKey
	rules    Rules
	verified []bool   // each record's claims are verified
	own      []string // each record's own server name, if any

	parent []int32
	size   []int32
	best   []int32    // the root's best ranked member
	name   []string   // the root's server name, if any
	splits [][]string // the root's ids named in split, if any
	links  []linkAt
	hints  []hint
	stats  stats
}

// stats count what the rule held back, for the measurements.
type stats struct {
	refusedName  int // unions refused: two server names
	refusedSplit int // unions refused: an admin's split
	ambiguous    int // package keys of two verified names
	unverified   int // name or package keys an unverified named record shares
}

type linkAt struct {
	a, b int
	ev   string
}

// hint is evidence not acted on: a conflict if its records end in two
// groups or more.
type hint struct {
	kind, key string
	records   []int
}

func newGrouper(entries []*mcpdir.Entry, rules Rules) *grouper {
	n := len(entries)
	g := &grouper{
		entries: entries, rules: rules,
		ranked: make([]rankKey, n), verified: make([]bool, n), own: make([]string, n),
		parent: make([]int32, n), size: make([]int32, n), best: make([]int32, n),
		name: make([]string, n), splits: make([][]string, n),
	}
	named := map[string]bool{}
	for p := range rules.Splits {
		named[p[0]], named[p[1]] = true, true
	}
	for i, e := range entries {
		g.verified[i] = rules.Trust.Verified(e)
		g.ranked[i] = newRankKey(e, g.verified[i])
		g.parent[i], g.size[i], g.best[i] = int32(i), 1, int32(i)
		g.own[i] = serverName(e.Name, e.Source)
		g.name[i] = g.own[i]
		for _, f := range facets(e) {
			if named[f.id] {
				g.splits[i] = append(g.splits[i], f.id)
			}
			if g.name[i] == "" {
				g.name[i] = serverName(f.name, f.source)
			}
		}
	}
	return g
}

func (g *grouper) find(i int) int {
	for int(g.parent[i]) != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = int(g.parent[i])
	}
	return i
}

// allowed reports whether roots a and b may be joined: never two records an
// admin split, and never two server names unless an admin joins them.
func (g *grouper) allowed(a, b int, byAdmin bool) bool {
	if !byAdmin && g.name[a] != "" && g.name[b] != "" && g.name[a] != g.name[b] {
		g.stats.refusedName++
		return false
	}
	for _, x := range g.splits[a] {
		for _, y := range g.splits[b] {
			if g.rules.Splits.Has(x, y) {
				g.stats.refusedSplit++
				return false
			}
		}
	}
	return true
}

// union joins roots a and b, which must be allowed; x and y are the
// members whose evidence ev joined them.
func (g *grouper) union(a, b, x, y int, ev string) {
	if g.size[a] < g.size[b] {
		a, b = b, a
	}
	g.parent[b] = int32(a)
	g.size[a] += g.size[b]
	if g.less(int(g.best[b]), int(g.best[a])) {
		g.best[a] = g.best[b]
	}
	if g.name[a] == "" {
		g.name[a] = g.name[b]
	}
	g.splits[a] = append(g.splits[a], g.splits[b]...)
	g.splits[b] = nil
	g.links = append(g.links, linkAt{x, y, ev})
}

func (g *grouper) less(i, j int) bool { return g.compare(i, j) < 0 }

func (g *grouper) compare(i, j int) int {
	if i == j {
		return 0
	}
	return compareRanked(&g.ranked[i], &g.ranked[j], g.entries[i], g.entries[j])
}

// compareRanked orders two records for the owner.
func compareRanked(ka, kb *rankKey, a, b *mcpdir.Entry) int {
	if c := ka.compare(kb); c != 0 {
		return c
	}
	// The same id twice (two versions of a record): the one updated last,
	// then the bytes, so that not even this depends on the input's order.
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Compare(ja, jb)
}

// keyset is the records bearing each key of one kind of evidence. Most
// keys have one bearer (a record's own id, its package), which costs no
// slice.
type keyset struct {
	first map[string]int32 // the first bearer of each key
	more  map[string][]int // every bearer of a key borne twice or more
}

func newKeyset(n int) keyset {
	return keyset{first: make(map[string]int32, n), more: map[string][]int{}}
}

func (k keyset) add(key string, i int) {
	if key == "" {
		return
	}
	f, ok := k.first[key]
	if !ok {
		k.first[key] = int32(i)
		return
	}
	b := k.more[key]
	if b == nil {
		b = []int{int(f)}
	}
	if b[len(b)-1] != i { // records are added in index order
		k.more[key] = append(b, i)
	}
}

func (k keyset) bearers(key string) []int {
	if b, ok := k.more[key]; ok {
		return b
	}
	if f, ok := k.first[key]; ok {
		return []int{int(f)}
	}
	return nil
}

// sortedKeys are the keys borne twice or more, in byte order.
func (k keyset) sortedKeys() []string {
	keys := make([]string, 0, len(k.more))
	for key := range k.more {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

func (g *grouper) run() {
	ids, names, pkgs := newKeyset(len(g.entries)), newKeyset(len(g.entries)), newKeyset(len(g.entries))
	scopes, repos := newKeyset(0), newKeyset(0)
	monorepo := map[string]bool{}
	for i, e := range g.entries {
		for _, f := range facets(e) {
			ids.add(f.id, i)
			names.add(serverName(f.name, f.source), i)
			pkgs.add(pagePackage(f.website), i)
			for k, u := range []string{f.repository, f.website} {
				repo, folder := repository(u, k == 1)
				repos.add(repo, i)
				repos.add(folder, i)
				if folder != "" {
					monorepo[repo] = true
				}
			}
		}
		for _, p := range e.Packages {
			pkgs.add(PackageKey(p.RegistryType, p.Identifier), i)
		}
		scopes.add(scopeGuess(e, g.own[i]), i)
	}

	// 1. An admin's joins.
	if len(g.rules.Joins) > 0 {
		for _, p := range slices.SortedFunc(maps.Keys(g.rules.Joins), func(a, b [2]string) int { return slices.Compare(a[:], b[:]) }) {
			a, b := ids.bearers(p[0]), ids.bearers(p[1])
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			g.cluster(g.roots(append(slices.Clone(a), b...)), "join "+p[0]+" "+p[1], true)
		}
	}
	// 2. Ids: versions of one record, and a merged entry's aliases.
	for _, k := range ids.sortedKeys() {
		g.cluster(g.roots(ids.more[k]), "id "+k, true)
	}
	// 3. Names, between verified records.
	for _, k := range names.sortedKeys() {
		var trusted, other []int
		for _, i := range names.more[k] {
			if g.verified[i] {
				trusted = append(trusted, i)
			} else {
				other = append(other, i)
			}
		}
		g.cluster(g.roots(trusted), "name "+k, false)
		if len(other) > 0 {
			g.stats.unverified++
			g.hints = append(g.hints, hint{"name", k, names.more[k]})
		}
	}
	// 4. Packages: a verified name's, and the records without a name.
	for _, k := range pkgs.sortedKeys() {
		bearers := pkgs.more[k]
		var join []int
		claimed := map[string]bool{} // verified names claiming the package
		conflict := false
		for _, i := range bearers {
			switch {
			case g.own[i] == "":
				join = append(join, i)
			case g.verified[i]:
				claimed[g.own[i]] = true
			default:
				conflict = true // an unverified record names the package
			}
		}
		if len(claimed) == 1 {
			for _, i := range bearers {
				if g.own[i] != "" && g.verified[i] {
					join = append(join, i)
				}
			}
		} else if len(claimed) > 1 {
			g.stats.ambiguous++
			conflict = true
		}
		if conflict {
			g.stats.unverified++
			g.hints = append(g.hints, hint{"package", k, bearers})
		}
		g.cluster(g.roots(join), "package "+k, false)
	}
	// Hints only: a scope guess beside the package's records, and a
	// repository that few enough groups share.
	for k := range scopes.first {
		if pkg := pkgs.bearers(k); len(pkg) > 0 {
			g.hints = append(g.hints, hint{"scope", k, append(slices.Clone(scopes.bearers(k)), pkg...)})
		}
	}
	for _, k := range repos.sortedKeys() {
		if !monorepo[k] {
			g.hints = append(g.hints, hint{"repository", k, repos.more[k]})
		}
	}
}

// bearer is a root touched by a key, and its best member bearing the key.
type bearer struct{ root, member int }

// roots are the distinct roots of bearers, best ranked first.
func (g *grouper) roots(bearers []int) []bearer {
	var out []bearer
	var at map[int]int // root → index in out, once out is long
	for _, i := range bearers {
		r := g.find(i)
		k := -1
		if at != nil {
			if j, ok := at[r]; ok {
				k = j
			}
		} else {
			k = slices.IndexFunc(out, func(b bearer) bool { return b.root == r })
		}
		if k >= 0 {
			if g.less(i, out[k].member) {
				out[k].member = i
			}
			continue
		}
		out = append(out, bearer{r, i})
		if at != nil {
			at[r] = len(out) - 1
		} else if len(out) > 16 {
			at = make(map[int]int, len(bearers))
			for j, b := range out {
				at[b.root] = j
			}
		}
	}
	slices.SortFunc(out, func(a, b bearer) int { return g.compare(int(g.best[a.root]), int(g.best[b.root])) })
	return out
}

// cluster joins each root, in order, to the first cluster it may join.
func (g *grouper) cluster(roots []bearer, ev string, byAdmin bool) {
	if len(roots) < 2 {
		return
	}
	var heads []bearer
	for _, r := range roots {
		joined := false
		for k, h := range heads {
			hr := g.find(h.root)
			if g.allowed(hr, r.root, byAdmin) {
				g.union(hr, r.root, h.member, r.member, ev)
				heads[k].root = g.find(hr)
				joined = true
				break
			}
		}
		if !joined {
			heads = append(heads, r)
		}
	}
}

func (g *grouper) groups() []Group {
	byRoot := make([]int32, len(g.entries)) // root → 1 + index in idx and out
	var idx [][]int
	for i := range g.entries {
		r := g.find(i)
		if byRoot[r] == 0 {
			idx = append(idx, nil)
			byRoot[r] = int32(len(idx))
		}
		k := byRoot[r] - 1
		idx[k] = append(idx[k], i)
	}
	out := make([]Group, len(idx))
	for k, members := range idx {
		slices.SortFunc(members, g.compare)
		out[k].Members = make([]*mcpdir.Entry, len(members))
		holder := members[0]
		for j, i := range members {
			out[k].Members[j] = g.entries[i]
			if g.verified[i] == g.verified[members[0]] {
				out[k].Owners = j + 1
			}
			if g.ranked[i].created < g.ranked[holder].created {
				holder = i
			}
		}
		out[k].ID = g.ranked[holder].id
	}
	for _, l := range g.links {
		k := byRoot[g.find(l.a)] - 1
		out[k].Links = append(out[k].Links, Link{A: g.ranked[l.a].id, B: g.ranked[l.b].id, Evidence: l.ev})
	}
	slices.SortFunc(out, func(a, b Group) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// conflicts are the hints whose records ended in two groups or more (and,
// for a repository, few enough to be one server's), one per set of groups
// and kind.
func (g *grouper) conflicts(gs []Group) []Conflict {
	if len(g.hints) == 0 {
		return nil
	}
	groupOf := make(map[*mcpdir.Entry]string, len(g.entries))
	for _, gr := range gs {
		for _, m := range gr.Members {
			groupOf[m] = gr.ID
		}
	}
	var out []Conflict
	seen := map[string]bool{}
	for _, h := range g.hints {
		var ids []string
		for _, i := range h.records {
			if id := groupOf[g.entries[i]]; !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		if len(ids) < 2 || h.kind == "repository" && len(ids) > MaxRepositoryServers {
			continue
		}
		slices.Sort(ids)
		if k := h.kind + "\x00" + strings.Join(ids, ","); !seen[k] {
			seen[k] = true
			out = append(out, Conflict{Kind: h.kind, Key: h.key, Reason: conflictReasons[h.kind], Entries: ids})
		}
	}
	sortConflicts(out)
	return out
}

// rankKey is what ranks a group's members for the owner.
type rankKey struct {
	verified bool // its claims are verified
	registry bool // a registry record
	styled   bool // named in the registry's form
	source   int  // admin, starter, import, other
	created  int64
	id       string
}

func newRankKey(e *mcpdir.Entry, verified bool) rankKey {
	k := rankKey{
		verified: verified,
		registry: e.Source == mcpdir.SourceRegistry,
		styled:   registryStyle(strings.TrimSpace(e.Name)),
		id:       idOf(e),
		created:  1<<63 - 1, // a record not yet stored comes after every stored one
	}
	switch e.Source {
	case mcpdir.SourceRegistry, mcpdir.SourceAdmin:
	case "":
		k.source = 1
	case mcpdir.SourceImport:
		k.source = 2
	default:
		k.source = 3
	}
	if !e.CreatedAt.IsZero() {
		k.created = e.CreatedAt.UnixNano()
	}
	return k
}

func (k *rankKey) compare(o *rankKey) int {
	if k.verified != o.verified {
		return boolFirst(k.verified)
	}
	if k.registry != o.registry {
		return boolFirst(k.registry)
	}
	if k.styled != o.styled {
		return boolFirst(k.styled)
	}
	return cmp.Or(cmp.Compare(k.source, o.source), cmp.Compare(k.created, o.created), strings.Compare(k.id, o.id))
}

func boolFirst(b bool) int {
	if b {
		return -1
	}
	return 1
}

// SplitsKey is where a store keeps the splits (mcpdir.StateStore), as
// SplitsJSON writes them.
const SplitsKey = "merge:splits"

// ApprovedKey is where a store keeps the record ids an admin approved
// (serve --listing approved), as a JSON array.
const ApprovedKey = "listing:approved"

// JoinsKey is where a store keeps an admin's joins (Rules.Joins), as
// SplitsJSON writes them.
const JoinsKey = "merge:joins"

// Remove declares a and b no longer distinct.
func (s Splits) Remove(a, b string) { delete(s, pair(a, b)) }

// Of is the ids declared distinct from id, in order.
func (s Splits) Of(id string) []string {
	var out []string
	for p := range s {
		if p[0] == id {
			out = append(out, p[1])
		} else if p[1] == id {
			out = append(out, p[0])
		}
	}
	slices.Sort(out)
	return out
}

// MarshalJSON writes the pairs in order: [["a","b"], …].
func (s Splits) MarshalJSON() ([]byte, error) {
	pairs := make([][2]string, 0, len(s))
	for p := range s {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return json.Marshal(pairs)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Splits) UnmarshalJSON(b []byte) error {
	var pairs [][2]string
	if err := json.Unmarshal(b, &pairs); err != nil {
		return err
	}
	*s = Splits{}
	for _, p := range pairs {
		s.Add(p[0], p[1])
	}
	return nil
}
