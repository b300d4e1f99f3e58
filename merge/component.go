package merge

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// Grouping a record depends only on the records it shares a key with (its
// ids, its server name, its packages, its repository, an npm scope guess),
// on theirs, and so on: a component of the graph in which records sharing
// any key are neighbours (and an admin's joined pairs too). A write
// regroups the components of the records it changes, not the directory.

// The kinds of link key, each hashed with its own seed (linkKey).
const (
	idKey = iota
	nameKey
	packageKey
	repositoryKey
	keyKinds
)

var keySeeds = func() (s [keyKinds]maphash.Seed) {
	for i := range s {
		s[i] = maphash.MakeSeed()
	}
	return s
}()

// linkKey is a key of a kind as the index keeps it: a 64-bit hash, not
// the string (issue 36), and never 0 (keyList's none). Two keys of one
// hash (one pair in about 10^12 at 3 million keys) only widen a
// component: a regrouping's scope is then two components, which group as
// each alone would, and Holders checks the names it finds.
func linkKey(kind int, k string) uint64 { return max(maphash.String(keySeeds[kind], k), 1) }

// keyList is a record's link keys: the first inline, the rest (few
// records have more than one) apart.
type keyList struct {
	first uint64 // 0: none
	rest  *[]uint64
}

func makeKeyList(ks []uint64) keyList {
	switch len(ks) {
	case 0:
		return keyList{}
	case 1:
		return keyList{first: ks[0]}
	}
	rest := slices.Clone(ks[1:])
	return keyList{ks[0], &rest}
}

// all yields the keys.
func (l keyList) all(yield func(uint64) bool) {
	if l.first == 0 || !yield(l.first) || l.rest == nil {
		return
	}
	for _, k := range *l.rest {
		if !yield(k) {
			return
		}
	}
}

func (l keyList) equal(o keyList) bool {
	if l.first != o.first || (l.rest == nil) != (o.rest == nil) {
		return false
	}
	return l.rest == nil || slices.Equal(*l.rest, *o.rest)
}

// linkKeys are the keys by which a record (of id) can link to or hint at
// another (evidence.go's; a scope guess is a package key, as Resolve
// matches it), but for its own id: a record is found by its id in
// Index.records, and by it the records that carry it as an alias
// (neighbours).
func linkKeys(e *mcpdir.Entry, id string) keyList {
	var buf [8]uint64
	ks := buf[:0]
	add := func(kind int, k string) {
		if k == "" || kind == idKey && k == id {
			return
		}
		if h := linkKey(kind, k); !slices.Contains(ks, h) {
			ks = append(ks, h)
		}
	}
	for _, f := range facets(e) {
		add(idKey, f.id)
		add(nameKey, serverName(f.name, f.source))
		add(packageKey, pagePackage(f.website))
		for k, u := range []string{f.repository, f.website} {
			repo, folder := repository(u, k == 1)
			add(repositoryKey, repo)
			add(repositoryKey, folder)
		}
	}
	for _, p := range e.Packages {
		add(packageKey, PackageKey(p.RegistryType, p.Identifier))
	}
	add(packageKey, scopeGuess(e, serverName(e.Name, e.Source)))
	return makeKeyList(ks)
}

// link records r's keys (replacing those it had; none: unlinks it).
func (x *Index) link(r *record, keys keyList) {
	if r.keys.equal(keys) {
		return
	}
	for k := range r.keys.all {
		x.bearers.remove(k, r)
	}
	r.keys = keys
	for k := range keys.all {
		x.bearers.add(k, r)
	}
}

// neighbours appends to out the records that share a key with the record
// of id, were it one with keys carrying aliases: those bearing its keys,
// those carrying its id as an alias, and the records of its aliases.
func (x *Index) neighbours(out []*record, id string, aliases []mcpdir.Alias, keys keyList) []*record {
	for k := range keys.all {
		for r := range x.bearers.of(k) {
			out = append(out, r)
		}
	}
	return x.bearersOfID(out, id, aliases)
}

// bearersOfID appends to out the records whose id or alias is id, and
// those of the ids of aliases (but id).
func (x *Index) bearersOfID(out []*record, id string, aliases []mcpdir.Alias) []*record {
	if r := x.records.get(id); r != nil && !r.removing {
		out = append(out, r)
	}
	for r := range x.bearers.of(linkKey(idKey, id)) {
		out = append(out, r)
	}
	for _, a := range aliases {
		if r := x.records.get(a.ID); r != nil && !r.removing && a.ID != id {
			out = append(out, r)
		}
	}
	return out
}

// bearers are the records bearing each link key. Most keys have one
// bearer, whose first key it is (most records have one): it is found in
// a table by its first key, and the others kept apart (issue 36: a map of
// bearer sets cost 39 bytes a record, the table 11 to 21).
type bearers struct {
	// first is one bearer of a key, whose first key it is, for some keys.
	first recordTable[uint64]
	more  map[uint64]bearerSet // the other bearers
}

func newBearers() bearers {
	first := recordTable[uint64]{
		key:  func(r *record) uint64 { return r.keys.first },
		hash: func(k uint64) uint64 { return k }, // a hash already
	}
	return bearers{first: first, more: map[uint64]bearerSet{}}
}

// add makes r, which bears key k but is not among its bearers, one of
// them.
func (b *bearers) add(k uint64, r *record) {
	if k == r.keys.first && b.first.get(k) == nil {
		b.first.add(r)
		return
	}
	s := b.more[k]
	s.add(r)
	b.more[k] = s
}

// remove takes r out of k's bearers; r's keys are still those by which it
// was added.
func (b *bearers) remove(k uint64, r *record) {
	if i, f := b.first.lookup(k); f == r {
		b.first.removeAt(i)
		return
	}
	if s, ok := b.more[k]; ok {
		if s.remove(r) {
			delete(b.more, k)
		} else {
			b.more[k] = s
		}
	}
}

// of yields k's bearers, in no order.
func (b *bearers) of(k uint64) func(yield func(*record) bool) {
	return func(yield func(*record) bool) {
		if f := b.first.get(k); f != nil && !yield(f) {
			return
		}
		b.more[k].all(yield)
	}
}

// bearerSet is a set of records bearing a key. Most have one: it is kept
// inline, and a map made only for a second.
type bearerSet struct {
	one  *record              // the member, if one (many is nil)
	many map[*record]struct{} // the members, when more than one
}

func (b *bearerSet) add(r *record) {
	switch {
	case b.many != nil:
		b.many[r] = struct{}{}
	case b.one == nil:
		b.one = r
	case b.one != r:
		b.many = map[*record]struct{}{b.one: {}, r: {}}
		b.one = nil
	}
}

// remove takes r out of the set and reports whether the set is empty.
func (b *bearerSet) remove(r *record) bool {
	if b.many != nil {
		delete(b.many, r)
		if len(b.many) == 1 {
			for only := range b.many {
				b.one = only
			}
			b.many = nil
		}
		return len(b.many) == 0 && b.one == nil
	}
	if b.one == r {
		b.one = nil
	}
	return b.one == nil
}

// all yields the members, in no order.
func (b bearerSet) all(yield func(*record) bool) {
	if b.one != nil {
		yield(b.one)
		return
	}
	for r := range b.many {
		if !yield(r) {
			return
		}
	}
}

// component is every record reachable from seeds through shared keys and
// an admin's joins, seeds included.
func (x *Index) component(seeds []*record) []*record {
	m := x.nextMark()
	var out []*record
	queue := slices.Clone(seeds)
	for len(queue) > 0 {
		r := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if r.mark == m {
			continue
		}
		r.mark = m
		out = append(out, r)
		id := r.id()
		if !r.removing {
			queue = x.neighbours(queue, id, aliasesOf(r.p, r.carries), r.keys)
		}
		for p := range x.rules.Joins {
			for i, end := range p {
				if end == id {
					// The other end's bearers: records whose id (or
					// alias) it is.
					queue = x.bearersOfID(queue, p[1-i], nil)
				}
			}
		}
	}
	return out
}

// sortConflicts puts conflicts in Resolve's order.
func sortConflicts(cs []Conflict) {
	order := map[string]int{"name": 0, "package": 1, "scope": 2, "repository": 3}
	slices.SortFunc(cs, func(a, b Conflict) int {
		return cmp.Or(cmp.Compare(order[a.Kind], order[b.Kind]), strings.Compare(a.Key, b.Key), slices.Compare(a.Entries, b.Entries))
	})
}
