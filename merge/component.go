package merge

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir"
)

// Grouping a record depends only on the records it shares a key with (its
// ids, its server name, its packages, its repository, an npm scope guess),
// on theirs, and so on: a component of the graph in which records sharing
// any key are neighbours (and an admin's joined pairs too). A write
// regroups the components of the records it changes, not the directory.

// linkKeys are the keys by which a record can link to or hint at another
// (evidence.go's, each with its kind's prefix; a scope guess is a package
// key, as Resolve matches it).
func linkKeys(e *mcpdir.Entry) []string {
	var ks []string
	add := func(prefix, k string) {
		if k != "" && !slices.Contains(ks, prefix+k) {
			ks = append(ks, prefix+k)
		}
	}
	for _, f := range facets(e) {
		add("i:", f.id)
		add("n:", serverName(f.name, f.source))
		add("p:", pagePackage(f.website))
		for k, u := range []string{f.repository, f.website} {
			repo, folder := repository(u, k == 1)
			add("r:", repo)
			add("r:", folder)
		}
	}
	for _, p := range e.Packages {
		add("p:", PackageKey(p.RegistryType, p.Identifier))
	}
	add("p:", scopeGuess(e, serverName(e.Name, e.Source)))
	return ks
}

// link records id's keys (replacing those it had; nil keys: unlinks it).
func (x *Index) link(id string, keys []string) {
	for _, k := range x.keysOf[id] {
		if b, ok := x.bearers[k]; ok {
			if b.remove(id) {
				delete(x.bearers, k)
			} else {
				x.bearers[k] = b
			}
		}
	}
	if keys == nil {
		delete(x.keysOf, id)
		return
	}
	x.keysOf[id] = keys
	for _, k := range keys {
		b := x.bearers[k]
		b.add(id)
		x.bearers[k] = b
	}
}

// bearerSet is the set of records bearing a key. Most keys have one: it
// is kept inline, and a map made only for a second (issue 36: a map per
// key was a third of what the merged index keeps besides the records).
type bearerSet struct {
	one  string
	has  bool                // one is a member (many is nil)
	many map[string]struct{} // the members, when more than one
}

func (b *bearerSet) add(id string) {
	switch {
	case b.many != nil:
		b.many[id] = struct{}{}
	case !b.has:
		b.one, b.has = id, true
	case b.one != id:
		b.many = map[string]struct{}{b.one: {}, id: {}}
		b.one, b.has = "", false
	}
}

// remove takes id out of the set and reports whether the set is empty.
func (b *bearerSet) remove(id string) bool {
	if b.many != nil {
		delete(b.many, id)
		if len(b.many) == 1 {
			for only := range b.many {
				b.one, b.has = only, true
			}
			b.many = nil
		}
		return len(b.many) == 0 && !b.has
	}
	if b.has && b.one == id {
		b.one, b.has = "", false
	}
	return !b.has
}

// all yields the members, in no order.
func (b bearerSet) all(yield func(string) bool) {
	if b.has {
		yield(b.one)
		return
	}
	for id := range b.many {
		if !yield(id) {
			return
		}
	}
}

// component is every record id reachable from seeds through shared keys
// and an admin's joins.
func (x *Index) component(seeds []string) map[string]bool {
	seen := make(map[string]bool, len(seeds))
	queue := slices.Clone(seeds)
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		for _, k := range x.keysOf[id] {
			for other := range x.bearers[k].all {
				if !seen[other] {
					queue = append(queue, other)
				}
			}
		}
		for p := range x.rules.Joins {
			for i, end := range p {
				if end != id {
					continue
				}
				// The other end's bearers: records whose id (or alias) it is.
				for other := range x.bearers["i:"+p[1-i]].all {
					if !seen[other] {
						queue = append(queue, other)
					}
				}
			}
		}
	}
	return seen
}

// sortConflicts puts conflicts in Resolve's order.
func sortConflicts(cs []Conflict) {
	order := map[string]int{"name": 0, "package": 1, "scope": 2, "repository": 3}
	slices.SortFunc(cs, func(a, b Conflict) int {
		return cmp.Or(cmp.Compare(order[a.Kind], order[b.Kind]), strings.Compare(a.Key, b.Key), slices.Compare(a.Entries, b.Entries))
	})
}
