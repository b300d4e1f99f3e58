// Package merge makes one entry of the records that describe one server:
// the registry's io.github.x/y, the npm package @x/y it publishes, the
// starter directory's record of it, an import's.
//
// # The rule
//
// Groups links two records when one of these says they are the same
// server, and a group is what the links join (union-find):
//
//  1. id: the same id (a merged entry's aliases count as its ids).
//  2. name: the same server name, case-insensitively: a registry record's
//     name, or any record's name of the registry's form namespace/name with
//     a reverse-DNS namespace (io.github.x/y). Free-form and package names
//     never link: npm's mcp-obsidian and PyPI's mcp-obsidian are two
//     servers.
//  3. package: the same package, by registry type and identifier as the
//     registry compares them (PackageKey: npm case-folded, PyPI by PEP 503,
//     OCI without tag or docker.io/), whether declared in packages or given
//     as the website (npmjs.com/package/X, pypi.org/project/X: the package
//     corpus's records). A package of unknown type says nothing: the
//     registry's 2025 seed types a third of its packages "unknown", and
//     guessing would join io.github.financial-datasets/mcp-server to npm's
//     or PyPI's "mcp-server", neither of them its package.
//  4. scope: the registry name io.github.x/y and the npm package @x/y, only
//     for a record that declares no npm package of its own (a declared list
//     is the registry's verified word; the scope is a guess, since nobody
//     checked that GitHub's x owns npm's @x).
//  5. repository: the same repository (github.com/owner/repo, case-folded,
//     without .git or a trailing slash; a github.com website counts), or
//     the same folder of one (…/tree/<ref>/<folder>, the ref dropped). A
//     repository links only when it holds one server: not when any record
//     points into a folder of it (a monorepo such as
//     github.com/modelcontextprotocol/servers), not when the records bearing
//     it are in more than MaxRepositoryServers groups after the first four
//     kinds (a monorepo nobody pointed into), and not when those groups
//     carry more than one server name (two named servers sharing a
//     repository leave a third record no way to tell which is its own).
//
// Links are made in that order, strongest first; within a kind, by key in
// byte order. The repository rule is judged on the groups the first four
// kinds made, before any repository link.
//
// A link is refused, and the records stay apart, when it would put in one
// group two different registry names (records of Source registry: the
// registry names each server once, so two names are two servers whatever
// they share), or two records an admin split (Splits). A package or scope
// key that groups of two registry names bear is ambiguous: it joins neither
// of them with its other records.
//
// Within one key the groups it touches are taken best canonical first (the
// rank below), and each joins the first it may join, so that the outcome
// does not depend on the input's order even when links are refused: with A,
// B and C sharing a package and an admin's split of A and C, B goes with the
// better ranked of A and C.
//
// # The canonical record
//
// A group's id is its canonical record's. Members are ranked: a registry
// record first (the registry's name is the server's public name), then a
// record named in the registry's form (the starter directory's), then by
// source (admin, starter, import), then the oldest (earliest CreatedAt; a
// stored record before a new one), then the least id. The rank uses nothing
// a re-import changes (downloads, briefs), so that a group's id stays put.
// Merge makes one entry of a group; the other records become its Aliases,
// by whose ids a lookup still finds it.
//
// # Reversing a merge
//
// An admin reverses a merge with a Splits pair: the two ids never share a
// group again. Groups and Merge change no record; keep the records, and a
// split only needs Groups run again.
package merge

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// MaxRepositoryServers is how many servers (groups under the stronger
// evidence) may share a repository for it to still link them: one server's
// records and one more (its package under a second name, a port to another
// language). Three or more, nothing ties them together but the repository:
// it is a monorepo.
const MaxRepositoryServers = 2

// Splits are pairs of record ids an admin declared distinct: they never
// share a group. This is how an admin reverses a merge.
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

// Group is the records of one server.
type Group struct {
	// ID is the canonical record's id: the merged entry's.
	ID string
	// Members are the records, canonical first, then in rank order.
	Members []*mcpdir.Entry
	// Links are why: the links that joined the members, in the order
	// made (len(Members)-1 of them).
	Links []Link
}

// Link is one piece of evidence that joined two records.
type Link struct {
	A, B     string // the two records' ids
	Evidence string // e.g. "package npm:@x/y", "repository github.com/x/y"
}

// Groups groups entries by server (see the package comment for the rule).
// Every entry is in exactly one group; groups come in id order.
//
// Ids are meant to be unique, as in a store: records sharing one are taken
// as versions of one record (the last updated first). An entry without an
// id is taken to have the one a store would give it. A merged entry links
// as each record it merged would (its aliases' ids, names, websites and
// repositories), so that Groups over Merge's entries joins nothing more.
func Groups(entries []*mcpdir.Entry, split Splits) []Group {
	g := newGrouper(entries, split)
	g.run()
	return g.groups()
}

// grouper is a union-find over entries' indexes with, per root, what the
// links must respect.
type grouper struct {
	entries []*mcpdir.Entry
	ranked  []rankKey
	split   Splits

	parent []int32
	size   []int32
	best   []int32    // the root's best ranked member
	reg    []string   // the root's registry name, if any
	name   []string   // the root's server name, if one
	names  []bool     // the root has more than one server name
	splits [][]string // the root's ids named in split, if any
	links  []linkAt
	stats  stats
}

// stats count what the rule held back, for the measurements.
type stats struct {
	refusedRegistry int // unions refused: two registry names
	refusedSplit    int // unions refused: an admin's split
	ambiguous       int // package or scope keys of two registry names
	monorepos       int // repository keys not linked: a folder, too many servers, or names
}

type linkAt struct {
	a, b int
	ev   string
}

func newGrouper(entries []*mcpdir.Entry, split Splits) *grouper {
	n := len(entries)
	g := &grouper{
		entries: entries, split: split,
		ranked: make([]rankKey, n),
		parent: make([]int32, n), size: make([]int32, n), best: make([]int32, n),
		reg: make([]string, n), name: make([]string, n), names: make([]bool, n),
		splits: make([][]string, n),
	}
	named := map[string]bool{}
	for p := range split {
		named[p[0]], named[p[1]] = true, true
	}
	for i, e := range entries {
		g.ranked[i] = newRankKey(e)
		g.parent[i], g.size[i], g.best[i] = int32(i), 1, int32(i)
		g.reg[i] = registryName(e.Name, e.Source)
		for _, f := range facets(e) {
			if named[f.id] {
				g.splits[i] = append(g.splits[i], f.id)
			}
			switch n := serverName(f.name, f.source); {
			case g.name[i] == "":
				g.name[i] = n
			case n != "" && n != g.name[i]:
				g.names[i] = true
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

// allowed reports whether roots a and b may be joined.
func (g *grouper) allowed(a, b int) bool {
	if g.reg[a] != "" && g.reg[b] != "" && g.reg[a] != g.reg[b] {
		g.stats.refusedRegistry++
		return false
	}
	for _, x := range g.splits[a] {
		for _, y := range g.splits[b] {
			if g.split.Has(x, y) {
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
	if g.reg[a] == "" {
		g.reg[a] = g.reg[b]
	}
	switch {
	case g.name[a] == "":
		g.name[a] = g.name[b]
	case g.name[b] != "" && g.name[b] != g.name[a]:
		g.names[a] = true
	}
	g.names[a] = g.names[a] || g.names[b]
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

// compareRanked orders two records for the canonical one.
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

func (g *grouper) run() {
	var keys [stages]keyset
	for s := range keys {
		keys[s] = newKeyset(len(g.entries))
	}
	monorepo := map[string]bool{}
	for i, e := range g.entries {
		for _, f := range facets(e) {
			keys[byID].add(f.id, i)
			keys[byName].add(serverName(f.name, f.source), i)
			keys[byPackage].add(pagePackage(f.website), i)
			for k, u := range []string{f.repository, f.website} {
				repo, folder := repository(u, k == 1)
				keys[byRepository].add(repo, i)
				keys[byRepository].add(folder, i)
				if folder != "" {
					monorepo[repo] = true
				}
			}
		}
		for _, p := range e.Packages {
			keys[byPackage].add(PackageKey(p.RegistryType, p.Identifier), i)
		}
		// The entry's own name only: an alias's guess, if it linked, is
		// among the merged entry's packages now.
		keys[byScope].add(scopeGuess(e, serverName(e.Name, e.Source)), i)
	}
	// A scope guess links its record to the package's own records.
	for k := range keys[byScope].first {
		if pkg := keys[byPackage].bearers(k); len(pkg) > 0 {
			keys[byScope].more[k] = append(keys[byScope].bearers(k), pkg...)
		}
	}
	for s := range stages {
		var eligible []string
		for k, bearers := range keys[s].more {
			if s == byRepository {
				roots := g.roots(bearers)
				if len(roots) < 2 {
					continue // one group already
				}
				if monorepo[k] || !g.oneServer(roots) {
					g.stats.monorepos++
					continue
				}
			}
			eligible = append(eligible, k)
		}
		// The repository rule is judged before any repository link: on
		// what the stronger evidence made.
		slices.Sort(eligible)
		for _, k := range eligible {
			g.link(s, k, keys[s].more[k])
		}
	}
}

// oneServer reports whether the groups bearing a repository are few enough,
// with at most one server name among them.
func (g *grouper) oneServer(roots []bearer) bool {
	if len(roots) > MaxRepositoryServers {
		return false
	}
	name := ""
	for _, r := range roots {
		if g.names[r.root] {
			return false
		}
		if n := g.name[r.root]; n != "" {
			if name != "" && name != n {
				return false
			}
			name = n
		}
	}
	return true
}

// bearer is a root touched by a key, and its best member bearing the key.
type bearer struct{ root, member int }

// roots are the distinct roots of bearers, best canonical first.
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

// link joins what one key's bearers may join.
func (g *grouper) link(stage int, key string, bearers []int) {
	roots := g.roots(bearers)
	if len(roots) < 2 {
		return
	}
	ev := stageNames[stage] + " " + key
	regs := map[string]bool{}
	for _, r := range roots {
		if g.reg[r.root] != "" {
			regs[g.reg[r.root]] = true
		}
	}
	if len(regs) > 1 && stage != byID && stage != byName {
		// Ambiguous: link the named and the unnamed each among themselves.
		g.stats.ambiguous++
		var named, unnamed []bearer
		for _, r := range roots {
			if g.reg[r.root] != "" {
				named = append(named, r)
			} else {
				unnamed = append(unnamed, r)
			}
		}
		g.cluster(named, ev)
		g.cluster(unnamed, ev)
		return
	}
	g.cluster(roots, ev)
}

// cluster joins each root, in order, to the first cluster it may join.
func (g *grouper) cluster(roots []bearer, ev string) {
	var heads []bearer
	for _, r := range roots {
		joined := false
		for k, h := range heads {
			hr := g.find(h.root)
			if g.allowed(hr, r.root) {
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
		out[k].ID = g.ranked[members[0]].id
		out[k].Members = make([]*mcpdir.Entry, len(members))
		for j, i := range members {
			out[k].Members[j] = g.entries[i]
		}
	}
	for _, l := range g.links {
		k := byRoot[g.find(l.a)] - 1
		out[k].Links = append(out[k].Links, Link{A: g.ranked[l.a].id, B: g.ranked[l.b].id, Evidence: l.ev})
	}
	slices.SortFunc(out, func(a, b Group) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// rankKey is what ranks a group's members for the canonical one.
type rankKey struct {
	registry bool // a registry record
	styled   bool // named in the registry's form
	source   int  // admin, starter, import, other
	created  int64
	id       string
}

func newRankKey(e *mcpdir.Entry) rankKey {
	k := rankKey{
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
