package merge

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// Inner is the search index the merged entries go into (search.Index).
type Inner interface {
	mcpdir.SearchIndex
	Entries(yield func(*mcpdir.Entry))
	// UpsertPacked is Upsert of entries packed, which it keeps as they
	// are: a lone record's entry shares the record's memory.
	UpsertPacked(ps ...packed.Entry)
}

// Index is the directory as people and agents see it: it takes the stored
// records (Upsert, Remove), groups them (Groups) and keeps one merged
// entry per group in the inner index, where searches find it; a lookup by
// any record's id finds its group's entry. The records stay as they were
// stored: a split (SetSplits) only groups them again.
//
// It keeps one record struct per record, by id, which also holds the
// record's group when the group's id is the record's (issue 36: eight maps
// by id string, several rebuilt on every regrouping, cost three times as
// much, about 900 bytes a record besides the records themselves). It
// keeps each record packed (package packed), and unpacks the records it
// needs whole: those of a component it groups again, of a group it merges
// again (issue 36: decoded, the records were two thirds of a 100x
// replica's heap).
type Index struct {
	inner Inner

	mu    sync.Mutex // serialises writes
	rules Rules
	// records are every record by id, the id read from the record's
	// pack; they and the records' packs are written under mu and gmu,
	// read under either (lookups take gmu for reading only). A record
	// being removed stays until its group is regrouped, so that a lookup
	// by its id meanwhile finds the old entry.
	records recordTable[string]
	live    int // records not being removed
	// bearers are each link key's records, by the key's hash: a write
	// regroups only the component of what it changed (component.go).
	bearers bearers
	// many are the members of the groups of more than one, by holder
	// (most groups are of one record, which costs no slice); under mu.
	many map[*record][]*record
	// aliased are the groups of the ids a record carries as aliases (a
	// merged entry written back), by that id; written under mu and gmu.
	aliased map[string]*record
	// approved, if not nil, are the record ids an admin approved: only
	// the groups holding one are served (serve --listing approved).
	approved map[string]bool
	gmu      sync.RWMutex
	// conflicts are the last grouping's (Resolve), replaced whole.
	conflicts atomic.Pointer[[]Conflict]
	mark      uint32 // the last of record.mark's values (nextMark)
}

// record is what the index keeps of a record and, when the record's id is
// its group's (the record holds its group), of the group: a group is
// reached from each of its records by pointer, and lives in the record
// of its id, which is always one of its members (Resolve). It is 64
// bytes, a size class (issue 36: 112 with its id, its evidence's hash and
// its members inline, and a map of them by id 37 more).
type record struct {
	// p is the record as last written (as it was, while being removed),
	// which holds its id (id); written under mu and gmu.
	p packed.Entry
	// keys are the record's link keys (linkKeys), as bearers holds them.
	keys keyList
	// group is the record that holds its group; written under mu and
	// gmu, read under either.
	group *record
	mark  uint32 // a walk's visit (Index.nextMark), under mu

	// Of the group this record holds (group == the record), under mu:
	// its Owners; whether it is of this record alone, as last merged (a
	// group of the same records, none of them fresh, is not merged again;
	// Index.many holds those of more); whether its entry is in the inner
	// index; whether a member carries aliases (whose ids aliased maps to
	// it).
	owners  int32
	lone    bool
	shown   bool
	aliases bool

	// carries is whether the record carries aliases (a merged entry
	// written back), which link it (neighbours) and which only unpacking
	// it gives.
	carries bool
	// fresh is whether the record was written with another value since
	// its group's members were last set: its group's entry is to be
	// merged again even if its members are the same.
	fresh bool
	// removing is whether the record is being removed: it stays, with
	// its pack for its id, until its group is regrouped.
	removing bool
}

// id is the record's: its pack's, so that it costs nothing of its
// own (issue 36: the ids read from the store were 129 MB of a 100x
// replica), or for a record without, the one a store would give it.
func (r *record) id() string {
	if id := r.p.ID(); id != "" {
		return id
	}
	return idOf(r.p.Unpack())
}

var recordSeed = maphash.MakeSeed()

// NewIndex returns an empty merged index over inner (which must be empty:
// the merged index owns what it holds), grouping by rules.
func NewIndex(inner Inner, rules Rules) *Index {
	if rules.Splits == nil {
		rules.Splits = Splits{}
	}
	x := &Index{
		inner: inner,
		rules: rules,
		records: recordTable[string]{
			key:  (*record).id,
			hash: func(id string) uint64 { return maphash.String(recordSeed, id) },
		},
		bearers: newBearers(),
		many:    map[*record][]*record{},
	}
	x.conflicts.Store(&[]Conflict{})
	return x
}

// nextMark is a value of record.mark no record has: a walk marks what it
// visited with it.
func (x *Index) nextMark() uint32 {
	if x.mark++; x.mark == 0 {
		for r := range x.records.all {
			r.mark = 0
		}
		x.mark = 1
	}
	return x.mark
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
	// Packed first, side by side: among the garbage the rest of the
	// writing makes, the packed entries' spans would stay part empty once
	// it is collected (at a build, about 200 bytes a record more in use).
	ps := make([]packed.Entry, len(records))
	for i, e := range records {
		ps[i] = packed.Pack(e)
	}
	held := make([]*record, len(records))
	added := 0
	for i, e := range records {
		if held[i] = x.records.get(idOf(e)); held[i] == nil {
			added++
		}
	}
	// The table grown apart, not to hold up lookups (which read the old
	// slots meanwhile); each record added or given its new pack under gmu,
	// as a lookup reads ids from packs.
	slots := x.records.grown(added)
	olds := make([]packed.Entry, len(records)) // none if new
	carried := make([]bool, len(records))
	x.gmu.Lock()
	x.records.slots = slots
	for i, e := range records {
		r := held[i]
		if r == nil {
			r = x.records.get(idOf(e)) // added before it in records
		}
		if r == nil {
			r = &record{p: ps[i]}
			x.records.add(r)
			x.live++
		} else {
			olds[i], carried[i] = r.p, r.carries
		}
		held[i] = r
		r.p, r.carries = ps[i], len(e.Aliases) > 0
		r.fresh = r.fresh || r.p != olds[i]
	}
	x.gmu.Unlock()
	// A changed record as it was (old none if new): what it leaves.
	type change struct {
		r       *record
		old     packed.Entry
		carried bool
		keys    keyList
	}
	var changed []change
	given := make(decoded, len(records))
	for i, e := range records {
		r, old := held[i], olds[i]
		given[r] = e
		// A record written again with the same evidence cannot change
		// the groups (its old pack's, read again rather than kept: issue
		// 36).
		if !old.Valid() || old != r.p && evidenceOf(old.Unpack()) != evidenceOf(e) {
			changed = append(changed, change{r, old, carried[i], r.keys})
		}
	}
	if len(changed) > 0 {
		for _, c := range changed {
			x.link(c.r, linkKeys(given[c.r], c.r.id()))
		}
		seeds := make([]*record, 0, len(records)+len(changed))
		for _, c := range changed {
			if c.old.Valid() {
				seeds = x.neighbours(seeds, c.r.id(), aliasesOf(c.old, c.carried), c.keys) // what it leaves
			}
		}
		x.regroupAround(append(seeds, held...), given)
		return
	}
	m := x.nextMark()
	var out upserts
	for _, r := range held {
		h := r.group
		if h.mark == m {
			continue
		}
		h.mark = m
		ms := x.members(h)
		x.setMembers(h, ms)
		if h.shown {
			out.add(ms, func() Group { return Group{ID: h.id(), Members: given.entries(ms), Owners: int(h.owners)} })
		}
	}
	out.to(x.inner)
}

// upserts are the entries a write brings to the inner index: a lone
// record as it is packed, other groups merged.
type upserts struct {
	packs   []packed.Entry
	entries []*mcpdir.Entry
}

// add adds the entry of a group of members ms, which group gives.
func (u *upserts) add(ms []*record, group func() Group) {
	if len(ms) == 1 && !ms[0].carries {
		u.packs = append(u.packs, ms[0].p)
		return
	}
	u.entries = append(u.entries, Merge(group()))
}

func (u *upserts) to(inner Inner) {
	if len(u.packs) > 0 {
		inner.UpsertPacked(u.packs...)
	}
	inner.Upsert(u.entries...)
}

// decoded are the entries given to Upsert, by record: used as they are
// rather than unpacked again.
type decoded map[*record]*mcpdir.Entry

// entry is r's entry, as given or unpacked.
func (d decoded) entry(r *record) *mcpdir.Entry {
	if e := d[r]; e != nil {
		return e
	}
	return r.p.Unpack()
}

func (d decoded) entries(rs []*record) []*mcpdir.Entry {
	es := make([]*mcpdir.Entry, len(rs))
	for i, r := range rs {
		es[i] = d.entry(r)
	}
	return es
}

// aliasesOf are the aliases of p, which carries some or none.
func aliasesOf(p packed.Entry, carries bool) []mcpdir.Alias {
	if !carries {
		return nil
	}
	return p.Unpack().Aliases
}

// Remove drops records by id.
func (x *Index) Remove(ids ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var seeds []*record
	for _, id := range ids {
		r := x.records.get(id)
		if r == nil || r.removing {
			continue
		}
		aliases, keys := aliasesOf(r.p, r.carries), r.keys
		r.removing = true
		x.live--
		x.link(r, keyList{})
		seeds = append(x.neighbours(seeds, id, aliases, keys), r)
	}
	if seeds != nil {
		x.regroupAround(seeds, nil)
	}
}

// regroupAround groups again the components of seeds (records there are
// or were), whose entries given has or unpacks: the whole directory when
// they reach a quarter of it.
func (x *Index) regroupAround(seeds []*record, given decoded) {
	if len(seeds) > x.live/4 {
		x.regroup(given)
		return
	}
	scope := x.component(seeds)
	if len(scope) > x.live/2 {
		x.regroup(given)
		return
	}
	sub := make([]*mcpdir.Entry, 0, len(scope))
	for _, r := range scope {
		if !r.removing {
			sub = append(sub, given.entry(r))
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
	x.regroup(nil)
}

// SetAdmin replaces the pairs of records an admin declared distinct and
// those an admin declared one server, and groups the directory again.
func (x *Index) SetAdmin(splits, joins Splits) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.rules.Splits, x.rules.Joins = splits, joins
	x.regroup(nil)
}

// SetListing serves only the groups that hold a record of approved (the
// ids an admin approved), or every group if approved is nil, and groups the
// directory again.
func (x *Index) SetListing(approved map[string]bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.approved = approved
	x.regroup(nil)
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

// regroup groups every record, whose entries given has or unpacks, and
// brings the inner index to the result: the entries of groups that changed
// (or came to be listed) are merged again, those of groups that are no
// more (or no longer listed) removed.
func (x *Index) regroup(given decoded) {
	all := make([]*mcpdir.Entry, 0, x.live)
	for r := range x.records.all {
		if !r.removing {
			all = append(all, given.entry(r))
		}
	}
	groups, conflicts := Resolve(all, x.rules)
	x.install(groups, conflicts, nil)
}

// install brings the index to groups and conflicts, the grouping of the
// records of scope (nil: of every record): the entries of groups that
// changed (or came to be listed) are merged again, those of groups that
// are no more (or no longer listed) removed. Outside scope nothing
// changes. Every group the records of scope were in is within scope (a
// group is linked, and scope is whole components).
func (x *Index) install(groups []Group, conflicts []Conflict, scope []*record) {
	// The groups scope's records were in, by their holders.
	var old []*record
	m := x.nextMark()
	visit := func(r *record) {
		if h := r.group; h != nil && h.mark != m {
			h.mark = m
			old = append(old, h)
		}
	}
	if scope == nil {
		for r := range x.records.all {
			visit(r)
		}
	} else {
		for _, r := range scope {
			visit(r)
		}
		isOld := make(map[string]bool, len(old))
		for _, h := range old {
			isOld[h.id()] = true
		}
		for _, c := range *x.conflicts.Load() {
			if !slices.ContainsFunc(c.Entries, func(id string) bool { return isOld[id] }) {
				conflicts = append(conflicts, c)
			}
		}
		sortConflicts(conflicts)
	}
	// The new groups' holders and members, the holders marked when
	// listed; the entries of those that changed.
	holders := make([]*record, len(groups))
	members := make([][]*record, len(groups))
	listed := x.nextMark()
	var upsert upserts
	for i, g := range groups {
		h := x.records.get(g.ID)
		holders[i] = h
		members[i] = make([]*record, len(g.Members))
		for j, e := range g.Members {
			members[i][j] = x.records.get(idOf(e))
		}
		if !x.listed(g.Members) {
			continue
		}
		h.mark = listed
		if h.group != h || !h.shown || !x.sameMembers(h, members[i]) || int(h.owners) != g.Owners {
			upsert.add(members[i], func() Group { return g })
		}
	}
	var remove []string
	for _, h := range old {
		if h.shown && h.mark != listed {
			remove = append(remove, h.id())
		}
	}
	// New entries first, then the records to them, then old entries gone:
	// a lookup meanwhile finds the old entry or the new, never none.
	upsert.to(x.inner)
	x.gmu.Lock()
	var unaliased map[*record]bool // old groups whose aliases are to go
	for _, h := range old {
		if h.aliases && scope != nil {
			if unaliased == nil {
				unaliased = map[*record]bool{}
			}
			unaliased[h] = true
		}
		x.setMembers(h, nil)
		h.owners, h.shown, h.aliases = 0, false, false
	}
	if scope == nil {
		x.aliased = nil
	} else if unaliased != nil {
		for a, h := range x.aliased {
			if unaliased[h] {
				delete(x.aliased, a)
			}
		}
	}
	for i, g := range groups {
		h := holders[i]
		x.setMembers(h, members[i])
		h.owners, h.shown = int32(g.Owners), h.mark == listed
		for j, e := range g.Members {
			members[i][j].group = h
			for _, a := range e.Aliases {
				if x.aliased == nil {
					x.aliased = map[string]*record{}
				}
				x.aliased[a.ID], h.aliases = h, true
			}
		}
	}
	// The records removed go: found first, not to change the table while
	// walking it.
	gone := scope
	if scope == nil {
		for r := range x.records.all {
			if r.removing {
				gone = append(gone, r)
			}
		}
	}
	for _, r := range gone {
		if r.removing {
			i, _ := x.records.lookup(r.id())
			x.records.removeAt(i)
		}
	}
	x.gmu.Unlock()
	x.inner.Remove(remove...)
	x.conflicts.Store(&conflicts)
}

// members are the members of the group h holds, in a slice of their own
// when one.
func (x *Index) members(h *record) []*record {
	if h.lone {
		return []*record{h}
	}
	return x.many[h]
}

// setMembers makes ms the members of the group h holds, as merged: none
// of them fresh any more. One is h itself (its id is the group's).
func (x *Index) setMembers(h *record, ms []*record) {
	for _, m := range ms {
		m.fresh = false
	}
	h.lone = len(ms) == 1
	if len(ms) > 1 {
		x.many[h] = ms
	} else {
		delete(x.many, h)
	}
}

// sameMembers reports whether the group h holds has members ms, none of
// them written with another value since.
func (x *Index) sameMembers(h *record, ms []*record) bool {
	if slices.ContainsFunc(ms, func(m *record) bool { return m.fresh }) {
		return false
	}
	if h.lone {
		return len(ms) == 1 && ms[0] == h
	}
	return len(ms) > 1 && slices.Equal(x.many[h], ms)
}

// holderOf is the record holding the group of the record (or alias) id,
// or nil; under mu or gmu.
func (x *Index) holderOf(id string) *record {
	if r := x.records.get(id); r != nil && r.group != nil {
		return r.group
	}
	return x.aliased[id]
}

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
	for r := range x.bearers.of(linkKey(nameKey, name)) {
		if e := r.p.Unpack(); serverName(e.Name, e.Source) == name {
			out = append(out, e)
		}
	}
	return out
}

// Get returns the entry of the group a record id is in.
func (x *Index) Get(id string) (*mcpdir.Entry, bool) {
	x.gmu.RLock()
	if h := x.holderOf(id); h != nil {
		id = h.id() // its pack is written under gmu too
	}
	x.gmu.RUnlock()
	return x.inner.Get(id)
}

// GroupOf returns the id of the entry a record id is merged into, and the
// ids of every record in it.
func (x *Index) GroupOf(id string) (string, []string, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	h := x.holderOf(id)
	if h == nil {
		return "", nil, false
	}
	var ids []string
	for _, m := range x.members(h) {
		ids = append(ids, m.id())
	}
	return h.id(), ids, true
}

func (x *Index) Search(query string, limit int) mcpdir.SearchResult {
	return x.inner.Search(query, limit)
}
func (x *Index) Find(q mcpdir.Query) mcpdir.SearchResult { return x.inner.Find(q) }
func (x *Index) Len() int                                { return x.inner.Len() }
func (x *Index) Generation() uint64                      { return x.inner.Generation() }
func (x *Index) Entries(yield func(*mcpdir.Entry))       { x.inner.Entries(yield) }
