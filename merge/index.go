package merge

import (
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpdir/mcpdir"
)

// Inner is the search index the merged entries go into (search.Index).
type Inner interface {
	mcpdir.SearchIndex
	Entries(yield func(*mcpdir.Entry))
}

// Index is the directory as people and agents see it: it takes the stored
// records (Upsert, Remove), groups them (Groups) and keeps one merged
// entry per group in the inner index, where searches find it; a lookup by
// any record's id finds its group's entry. The records stay as they were
// stored: a split (SetSplits) only groups them again.
type Index struct {
	inner Inner

	mu      sync.Mutex // serialises writes
	records map[string]*mcpdir.Entry
	rules   Rules
	// members are each group's records as last merged, canonical first,
	// by the group's id: a group whose records are the same pointers is
	// not merged again.
	members map[string][]*mcpdir.Entry
	owners  map[string]int // each group's Owners, by the group's id
	// approved, if not nil, are the record ids an admin approved: only
	// the groups holding one are served (serve --listing approved).
	approved map[string]bool
	// shown are the groups in the inner index, by id.
	shown map[string]bool
	// evidence is each record's evidence signature as last grouped: a
	// record written again with the same one cannot change the groups.
	evidence map[string]evidenceSum
	// keysOf are each record's link keys, bearers each key's records: a
	// write regroups only the component of what it changed (component.go).
	keysOf  map[string][]string
	bearers map[string]bearerSet
	// groupOf maps every record's id to its group's; written under mu and
	// gmu, read under either (lookups take gmu for reading only).
	groupOf map[string]string
	gmu     sync.RWMutex
	// conflicts are the last grouping's (Resolve), replaced whole.
	conflicts atomic.Pointer[[]Conflict]
}

// NewIndex returns an empty merged index over inner (which must be empty:
// the merged index owns what it holds), grouping by rules.
func NewIndex(inner Inner, rules Rules) *Index {
	if rules.Splits == nil {
		rules.Splits = Splits{}
	}
	x := &Index{inner: inner, records: map[string]*mcpdir.Entry{}, rules: rules,
		members: map[string][]*mcpdir.Entry{}, owners: map[string]int{}, shown: map[string]bool{}, evidence: map[string]evidenceSum{},
		keysOf: map[string][]string{}, bearers: map[string]bearerSet{}}
	x.groupOf = map[string]string{}
	x.conflicts.Store(&[]Conflict{})
	return x
}

// Upsert adds or replaces records (by id). A record whose evidence is
// unchanged (a new brief, a live check) only merges its group again; other
// writes group again the components of the records they change (Groups is
// linear in the records it is given: a component, not the directory).
func (x *Index) Upsert(records ...*mcpdir.Entry) {
	if len(records) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var changed []string
	for _, r := range records {
		id := idOf(r)
		x.records[id] = r
		if ev := sha256.Sum256([]byte(evidenceOf(r))); x.evidence[id] != evidenceSum(ev[:16]) {
			x.evidence[id] = evidenceSum(ev[:16])
			changed = append(changed, id)
		}
	}
	if len(changed) > 0 {
		seeds := make([]string, 0, len(records)+len(changed))
		for _, id := range changed {
			seeds = append(seeds, x.keysOf[id]...) // the keys it had: what it leaves
			x.link(id, linkKeys(x.records[id]))
		}
		x.regroupAround(append(x.bearersOf(seeds), idsOf(records)...))
		return
	}
	dirty := map[string]bool{}
	for _, r := range records {
		dirty[x.groupOf[idOf(r)]] = true
	}
	var out []*mcpdir.Entry
	for gid := range dirty {
		ms := slices.Clone(x.members[gid])
		for i, m := range ms {
			ms[i] = x.records[idOf(m)]
		}
		x.members[gid] = ms
		if x.shown[gid] {
			out = append(out, merged(Group{ID: gid, Members: ms, Owners: x.owners[gid]}))
		}
	}
	x.inner.Upsert(out...)
}

// Remove drops records by id.
func (x *Index) Remove(ids ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var seeds []string
	for _, id := range ids {
		if _, ok := x.records[id]; ok {
			seeds = append(seeds, x.keysOf[id]...)
			delete(x.records, id)
			delete(x.evidence, id)
			x.link(id, nil)
		}
	}
	if seeds != nil {
		x.regroupAround(append(x.bearersOf(seeds), ids...))
	}
}

// bearersOf are the records that bear keys.
func (x *Index) bearersOf(keys []string) []string {
	var out []string
	for _, k := range keys {
		for id := range x.bearers[k].all {
			out = append(out, id)
		}
	}
	return out
}

func idsOf(records []*mcpdir.Entry) []string {
	out := make([]string, len(records))
	for i, r := range records {
		out[i] = idOf(r)
	}
	return out
}

// regroupAround groups again the components of seeds (record ids, of
// records there are or were): the whole directory when they reach a
// quarter of it.
func (x *Index) regroupAround(seeds []string) {
	if len(seeds) > len(x.records)/4 {
		x.regroup()
		return
	}
	scope := x.component(seeds)
	if len(scope) > len(x.records)/2 {
		x.regroup()
		return
	}
	sub := make([]*mcpdir.Entry, 0, len(scope))
	for id := range scope {
		if r, ok := x.records[id]; ok {
			sub = append(sub, r)
		}
	}
	groups, conflicts := Resolve(sub, x.rules)
	x.install(groups, conflicts, scope)
}

// SetSplits replaces the pairs of records an admin declared distinct, and
// groups the directory again.
func (x *Index) SetSplits(s Splits) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rules.Splits = s
	x.regroup()
}

// SetAdmin replaces the pairs of records an admin declared distinct and
// those an admin declared one server, and groups the directory again.
func (x *Index) SetAdmin(splits, joins Splits) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rules.Splits, x.rules.Joins = splits, joins
	x.regroup()
}

// SetListing serves only the groups that hold a record of approved (the
// ids an admin approved), or every group if approved is nil, and groups the
// directory again.
func (x *Index) SetListing(approved map[string]bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.approved = approved
	x.regroup()
}

// listed reports whether a group of these members is served.
func (x *Index) listed(ms []*mcpdir.Entry) bool {
	if x.approved == nil {
		return true
	}
	for _, m := range ms {
		if x.approved[idOf(m)] {
			return true
		}
		for _, a := range m.Aliases {
			if x.approved[a.ID] {
				return true
			}
		}
	}
	return false
}

// Conflicts are the evidence between entries that the rule did not trust
// enough to join them, as last grouped.
func (x *Index) Conflicts() []Conflict { return *x.conflicts.Load() }

// regroup groups every record and brings the inner index to the result:
// the entries of groups that changed (or came to be listed) are merged
// again, those of groups that are no more (or no longer listed) removed.
func (x *Index) regroup() {
	all := make([]*mcpdir.Entry, 0, len(x.records))
	for id, r := range x.records {
		all = append(all, r)
		if x.keysOf[id] == nil {
			x.link(id, linkKeys(r))
		}
	}
	groups, conflicts := Resolve(all, x.rules)
	x.install(groups, conflicts, nil)
}

// install brings the index to groups and conflicts, the grouping of the
// records of scope (their ids; nil: of every record): the entries of
// groups that changed (or came to be listed) are merged again, those of
// groups that are no more (or no longer listed) removed. Outside scope
// nothing changes, and nothing is copied.
func (x *Index) install(groups []Group, conflicts []Conflict, scope map[string]bool) {
	old := map[string]bool{} // the groups scope's records were in (nil scope: every group)
	for id := range scope {
		if gid, ok := x.groupOf[id]; ok {
			old[gid] = true
		}
	}
	isOld := func(gid string) bool { return scope == nil || old[gid] }
	if scope != nil {
		for _, c := range *x.conflicts.Load() {
			if !slices.ContainsFunc(c.Entries, isOld) {
				conflicts = append(conflicts, c)
			}
		}
		sortConflicts(conflicts)
	}
	var upsert []*mcpdir.Entry
	shown := map[string]bool{}
	for _, g := range groups {
		if !x.listed(g.Members) {
			continue
		}
		shown[g.ID] = true
		if !x.shown[g.ID] || !slices.Equal(x.members[g.ID], g.Members) || x.owners[g.ID] != g.Owners {
			upsert = append(upsert, merged(g))
		}
	}
	var remove []string
	for id := range x.shown {
		if isOld(id) && !shown[id] {
			remove = append(remove, id)
		}
	}
	// New entries first, then the map to them, then old entries gone: a
	// lookup meanwhile finds the old entry or the new, never none.
	x.inner.Upsert(upsert...)
	x.gmu.Lock()
	if scope == nil {
		x.groupOf = make(map[string]string, len(x.records))
		x.members = make(map[string][]*mcpdir.Entry, len(groups))
		x.owners = make(map[string]int, len(groups))
		x.shown = shown
	} else {
		for id := range scope {
			delete(x.groupOf, id)
		}
		for gid := range old {
			delete(x.members, gid)
			delete(x.owners, gid)
			delete(x.shown, gid)
		}
		for gid := range shown {
			x.shown[gid] = true
		}
	}
	for _, g := range groups {
		for _, m := range g.Members {
			x.groupOf[idOf(m)] = g.ID
			for _, a := range m.Aliases {
				x.groupOf[a.ID] = g.ID
			}
		}
		x.members[g.ID], x.owners[g.ID] = g.Members, g.Owners
	}
	x.gmu.Unlock()
	x.inner.Remove(remove...)
	x.conflicts.Store(&conflicts)
}

// merged is a group's entry: a lone record is served as it is.
func merged(g Group) *mcpdir.Entry {
	if len(g.Members) == 1 && len(g.Members[0].Aliases) == 0 {
		return g.Members[0]
	}
	return Merge(g)
}

// evidenceSum is the first half of the SHA-256 of a record's evidenceOf:
// what tells a write that changes nothing Groups reads, kept in 16 bytes
// rather than the string (issue 36: a fifth of what the merged index
// keeps besides the records).
type evidenceSum [16]byte

// evidenceOf is what Groups reads of a record, as one string.
func evidenceOf(e *mcpdir.Entry) string {
	var b strings.Builder
	for _, f := range facets(e) {
		b.WriteString(f.id + "\x00" + f.name + "\x00" + f.source + "\x00" + f.website + "\x00" + f.repository + "\x01")
	}
	b.WriteString(e.Origin + "\x01")
	if e.Imported {
		b.WriteString("imported\x01")
	}
	for _, p := range e.Packages {
		b.WriteString(p.RegistryType + "\x00" + p.Identifier + "\x01")
	}
	b.WriteString(strconv.FormatInt(e.CreatedAt.UnixNano(), 10))
	return b.String()
}

// Holders are the records that bear a server name (case-insensitively, as
// the rule compares names), in no particular order.
func (x *Index) Holders(name string) []*mcpdir.Entry {
	name = strings.ToLower(strings.TrimSpace(name))
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []*mcpdir.Entry
	for id := range x.bearers["n:"+name].all {
		if r := x.records[id]; serverName(r.Name, r.Source) == name {
			out = append(out, r)
		}
	}
	return out
}

// Get returns the entry of the group a record id is in.
func (x *Index) Get(id string) (*mcpdir.Entry, bool) {
	x.gmu.RLock()
	gid, ok := x.groupOf[id]
	x.gmu.RUnlock()
	if ok {
		id = gid
	}
	return x.inner.Get(id)
}

// GroupOf returns the id of the entry a record id is merged into, and the
// ids of every record in it.
func (x *Index) GroupOf(id string) (string, []string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	gid, ok := x.groupOf[id]
	if !ok {
		return "", nil, false
	}
	var ids []string
	for _, m := range x.members[gid] {
		ids = append(ids, idOf(m))
	}
	return gid, ids, true
}

func (x *Index) Search(query string, limit int) mcpdir.SearchResult {
	return x.inner.Search(query, limit)
}
func (x *Index) Find(q mcpdir.Query) mcpdir.SearchResult { return x.inner.Find(q) }
func (x *Index) Len() int                                { return x.inner.Len() }
func (x *Index) Generation() uint64                      { return x.inner.Generation() }
func (x *Index) Entries(yield func(*mcpdir.Entry))       { x.inner.Entries(yield) }
