package registryapi

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// view is the directory's servers in the order the list pages them: by
// served name, each server's versions newest first. It is made again
// when the directory or its history changes.
//
// At 100 times the packages corpus it has millions of rows, held while
// anyone pages the list (issue 36), so a row is small: its strings are
// the entry's own memory where they can be, and what rows share (a
// name's namespace, a version, an odd time) is kept once, here. A server's
// rows are found by binary search on the name.
type view struct {
	gen, historyGen uint64
	rows            []row
	// namespaces are the served names' namespaces, up to and with the
	// first slash (the whole name when it has none), sorted: names order
	// as their namespaces do, then as their rests.
	namespaces []string
	versions   []string                // sorted
	heads      []*mcpdir.ServerVersion // the rows' versions in the history
	odd        []time.Time             // the times no int64 of Unix nanoseconds holds (the zero time)
}

// row is one version of a server: what listing, filtering and ordering
// need of it (as the view is made, a row first stands for a server: see
// builder). A row keeps no entry (the directory's are unpacked for the
// walk that makes the view, each a copy): those served are read again.
type row struct {
	// rest is the served name after its namespace: the entry's name's
	// memory when it is part of it (the packed index keeps it anyway).
	rest string
	// id is the server's entry's: "" when every version is deleted.
	id string
	// updated is when the row last changed here (the entry's time, or the
	// version's), in Unix nanoseconds; with oddTime, an index into
	// view.odd.
	updated   int64
	namespace uint32 // into view.namespaces
	version   uint32 // into view.versions
	// head is 1 + the index in view.heads of the version in the history
	// (its record not read); 0 for an entry with no history, served at
	// its own version.
	head    uint32
	latest  bool
	oddTime bool
	// own marks the row served from the entry: the version the entry is
	// at (ownRow).
	own bool
	// deleted is the row's status: the entry's, or the version's.
	deleted bool
}

// fromEntry reports whether the row is served from the entry: the
// server's version in the directory.
func (r *row) fromEntry() bool { return r.id != "" && r.own }

func (v *view) name(r *row) string    { return v.namespaces[r.namespace] + r.rest }
func (v *view) version(r *row) string { return v.versions[r.version] }

// head is the row's version in the history, or nil.
func (v *view) head(r *row) *mcpdir.ServerVersion {
	if r.head == 0 {
		return nil
	}
	return v.heads[r.head-1]
}

// splitName splits a served name into its namespace, up to and with the
// first slash, and the rest. Two names whose namespaces differ order as
// those do: neither holds a slash but at its end, so the first byte they
// differ at is in both, or one is a whole name without a slash, a prefix
// of the other.
func splitName(name string) (namespace, rest string) {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i+1], name[i+1:]
	}
	return name, ""
}

// search is the index of the first row whose name is name or after it,
// and whether it is name.
func (v *view) search(name string) (int, bool) {
	ns, rest := splitName(name)
	k, found := slices.BinarySearch(v.namespaces, ns)
	i := sort.Search(len(v.rows), func(i int) bool {
		r := &v.rows[i]
		if int(r.namespace) != k {
			return int(r.namespace) > k
		}
		return !found || r.rest >= rest
	})
	return i, found && i < len(v.rows) && int(v.rows[i].namespace) == k && v.rows[i].rest == rest
}

// span is the rows of the server named name, [lo, hi): empty if none.
func (v *view) span(name string) (lo, hi int) {
	lo, ok := v.search(name)
	if !ok {
		return lo, lo
	}
	hi = lo + 1
	for hi < len(v.rows) && v.rows[hi].namespace == v.rows[lo].namespace && v.rows[hi].rest == v.rows[lo].rest {
		hi++
	}
	return lo, hi
}

// entryRows is the rows of the server an entry is, named as current names
// it: its served name, or, when another entry holds that, the name deduped
// (an entry renamed since the view was made is not found, as it would be
// under its new name once the view is made again).
func (v *view) entryRows(e *mcpdir.Entry) (lo, hi int) {
	name := ServedName(e)
	for _, n := range [...]string{name, dedupe(name, e.ID)} {
		if lo, hi := v.span(n); lo < hi && v.rows[lo].id == e.ID {
			return lo, hi
		}
	}
	return 0, 0
}

// builder makes a view: it keeps each namespace, version and odd time
// once.
//
// A view is made in its own rows (issue 36: at 100x, a server each entry
// beside its rows got a replica in a 2 GiB container killed for memory,
// and then took it past 2 GB). First a row stands for a server, an entry
// or a server whose versions are all deleted: its namespace and version
// are the builder's indexes, its head is 1 + the index of its versions in
// the builder's histories (0 for none, as most have), and own says that
// its entry is from a registry. Once they are named and ordered, each is
// spread, in place, into its versions' rows (spread).
type builder struct {
	v *view
	// namespaces are the namespaces' indexes in namespaceNames, in the
	// order they came.
	namespaces     map[string]uint32
	namespaceNames []string
	// versions are the versions' indexes in versionNames, in the order
	// they came, and then into v.versions.
	versions     map[string]uint32
	versionNames []string
	odd          map[time.Time]int64
	histories    [][]*mcpdir.ServerVersion
}

func (b *builder) compareNames(x, y *row) int {
	if x.namespace == y.namespace { // most often: there are few namespaces
		return strings.Compare(x.rest, y.rest)
	}
	return cmp.Or(strings.Compare(b.namespaceNames[x.namespace], b.namespaceNames[y.namespace]), strings.Compare(x.rest, y.rest))
}

// name is server s's served name.
func (b *builder) name(s *row) string { return b.namespaceNames[s.namespace] + s.rest }

// versionIndex is version's index in versionNames, which it joins if new.
func (b *builder) versionIndex(version string) uint32 {
	k, ok := b.versions[version]
	if !ok {
		k = uint32(len(b.versionNames))
		b.versions[version] = k
		b.versionNames = append(b.versionNames, version)
	}
	return k
}

// encodeTime is t as a row keeps it: Unix nanoseconds, or (odd) an index
// into the view's odd times. A time is compared, never served: its instant
// is all that counts.
func (b *builder) encodeTime(t time.Time) (int64, bool) {
	if ns := t.UnixNano(); time.Unix(0, ns).Equal(t) {
		return ns, false
	}
	k, ok := b.odd[t]
	if !ok {
		k = int64(len(b.v.odd))
		b.odd[t] = k
		b.v.odd = append(b.v.odd, t)
	}
	return k, true
}

// decodeTime is the time encodeTime encoded.
func (b *builder) decodeTime(n int64, odd bool) time.Time {
	if odd {
		return b.v.odd[n]
	}
	return time.Unix(0, n)
}

// history sets server s's versions.
func (b *builder) history(s *row, vs []*mcpdir.ServerVersion) {
	if len(vs) > 0 {
		b.histories = append(b.histories, vs)
		s.head = uint32(len(b.histories))
	}
}

// versionsOf is server s's versions.
func (b *builder) versionsOf(s *row) []*mcpdir.ServerVersion {
	if s.head == 0 {
		return nil
	}
	return b.histories[s.head-1]
}

// named sets server s's name, its namespace kept once.
func (b *builder) named(s *row, name string) {
	ns, rest := splitName(name)
	k, ok := b.namespaces[ns]
	if !ok {
		ns = strings.Clone(ns) // not the whole name it was cut from
		k = uint32(len(b.namespaceNames))
		b.namespaces[ns] = k
		b.namespaceNames = append(b.namespaceNames, ns)
	}
	s.namespace, s.rest = k, rest
}

// row is server s's row of version h (nil: the entry with no history),
// once s's namespace is the view's.
func (b *builder) row(s *row, h *mcpdir.ServerVersion, latest, own bool) row {
	r := row{rest: s.rest, id: s.id, namespace: s.namespace, latest: latest, own: own, deleted: s.deleted}
	version, updated := b.versionNames[s.version], time.Time{}
	if h != nil {
		b.v.heads = append(b.v.heads, h)
		r.head = uint32(len(b.v.heads))
		version, updated = h.Version, h.UpdatedAt
		if !r.fromEntry() {
			r.deleted = h.Status == mcpdir.StatusDeleted
		}
	}
	if own := b.decodeTime(s.updated, s.oddTime); r.fromEntry() && own.After(updated) {
		updated = own
	}
	r.version = b.versions[version]
	r.updated, r.oddTime = b.encodeTime(updated)
	return r
}

// mergeTail sorts servers by name, servers[:k] sorted already and the few
// after them not: they are sorted aside and merged in from the end back,
// instead of sorting millions again.
func (b *builder) mergeTail(servers []row, k int) {
	if k == len(servers) {
		return
	}
	tail := slices.Clone(servers[k:])
	slices.SortFunc(tail, func(x, y row) int { return b.compareNames(&x, &y) })
	for i, j, w := k-1, len(tail)-1, len(servers)-1; j >= 0; w-- {
		if i >= 0 && b.compareNames(&servers[i], &tail[j]) > 0 {
			servers[w] = servers[i]
			i--
		} else {
			servers[w] = tail[j]
			j--
		}
	}
}

// spread makes the view's rows of servers, sorted by name, in their own
// memory: each server's rows, its versions newest first, are written from
// the end back, where no server still to be read is (each has one row at
// least).
func (b *builder) spread(servers []row) {
	v := b.v
	n := 0
	for i := range servers {
		s := &servers[i]
		n += max(1, len(b.versionsOf(s)))
		if ns := b.namespaceNames[s.namespace]; len(v.namespaces) == 0 || v.namespaces[len(v.namespaces)-1] != ns {
			v.namespaces = append(v.namespaces, ns)
		}
		s.namespace = uint32(len(v.namespaces) - 1)
	}
	// The versions, each once, sorted: a filter finds its own by binary
	// search.
	for _, vs := range b.histories {
		for _, h := range vs {
			b.versionIndex(h.Version)
		}
	}
	v.versions = slices.Sorted(slices.Values(b.versionNames))
	for i, version := range v.versions {
		b.versions[version] = uint32(i)
	}
	m := len(servers)
	rows := slices.Grow(servers, n-m)[:n]
	for i, w := m-1, n; i >= 0; i-- {
		s := rows[i]
		vs := b.versionsOf(&s)
		if len(vs) == 0 {
			w--
			rows[w] = b.row(&s, nil, true, true)
			continue
		}
		latest := vs[mcpdir.LatestVersion(vs)]
		slices.SortFunc(vs, mcpdir.NewerVersion)
		own := ownRow(s.id, b.versionNames[s.version], vs, latest)
		w -= len(vs)
		for k, h := range vs {
			rows[w+k] = b.row(&s, h, h == latest, h == own)
		}
	}
	v.rows = rows
}

// current returns the view of the directory as it is now.
func (a *API) current(ctx context.Context) (*view, error) {
	gen, hgen := a.Dir.Generation(), a.historyGen.Load()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.view != nil && a.view.gen == gen && a.view.historyGen == hgen {
		return a.view, nil
	}
	heads := map[string][]*mcpdir.ServerVersion{} // by entry id
	versions := 0
	if a.History != nil {
		err := a.History.VersionHeads(ctx, func(v *mcpdir.ServerVersion) error {
			heads[v.EntryID()] = append(heads[v.EntryID()], v)
			versions++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	b := &builder{v: &view{gen: gen, historyGen: hgen, heads: make([]*mcpdir.ServerVersion, 0, versions)},
		namespaces: map[string]uint32{}, versions: map[string]uint32{}, odd: map[time.Time]int64{}}
	// The old view goes as the new one is made (requests that have it keep
	// it meanwhile): at 100x both would not fit a replica's memory.
	a.view = nil
	// A server an entry, in the memory of the rows to be: millions of rows
	// grown by append would be several times their size, garbage and the
	// copy live at once.
	servers := make([]row, 0, a.Dir.Len()+versions)
	a.Dir.Entries(func(e *mcpdir.Entry) {
		// A merged entry's versions are its registry record's, whose id
		// may be an alias's: the entry keeps its oldest record's id.
		vs := heads[e.ID]
		delete(heads, e.ID)
		for _, al := range e.Aliases {
			if len(vs) == 0 {
				vs = heads[al.ID]
			}
			delete(heads, al.ID)
		}
		s := row{id: e.ID, own: e.Source == mcpdir.SourceRegistry,
			version: b.versionIndex(serverVersion(e)), deleted: deleted(e)}
		s.updated, s.oddTime = b.encodeTime(e.UpdatedAt)
		b.history(&s, vs)
		b.named(&s, ServedName(e))
		// The packed index keeps the entry's name: the rest most often is
		// it, or a part of it, and then costs nothing more.
		if i := strings.Index(e.Name, s.rest); i >= 0 {
			s.rest = e.Name[i : i+len(s.rest)]
		} else {
			s.rest = strings.Clone(s.rest)
		}
		servers = append(servers, s)
	})
	// Two entries may derive one name (the same server from a registry
	// and from elsewhere): the registry's, or else the first by id, keeps
	// it, and the others (a third too) take their id's first characters
	// after it.
	slices.SortFunc(servers, func(x, y row) int {
		if c := b.compareNames(&x, &y); c != 0 {
			return c
		}
		if x.own != y.own {
			if x.own {
				return -1
			}
			return 1
		}
		return strings.Compare(x.id, y.id)
	})
	var renamed []int
	for i, holder := 1, 0; i < len(servers); i++ {
		if b.compareNames(&servers[i], &servers[holder]) != 0 {
			holder = i
			continue
		}
		b.named(&servers[i], dedupe(b.name(&servers[holder]), servers[i].id))
		renamed = append(renamed, i)
	}
	if len(renamed) > 0 {
		// The few renamed go to the end, the others keeping their order,
		// and are merged back in.
		moved := make([]row, 0, len(renamed))
		w := 0
		for i := range servers {
			if len(moved) < len(renamed) && renamed[len(moved)] == i {
				moved = append(moved, servers[i])
				continue
			}
			servers[w] = servers[i]
			w++
		}
		copy(servers[w:], moved)
		b.mergeTail(servers, w)
	}
	// The servers whose every version is deleted: served, deleted, for
	// registries that follow this one, under a name no entry holds. (A
	// server whose entry an admin removed without deleting its versions
	// is not served.)
	entries := len(servers)
	taken := map[string]bool{}
	for _, vs := range heads {
		if i := mcpdir.LatestVersion(vs); vs[i].Status == mcpdir.StatusDeleted && !taken[vs[i].Name] {
			var s row
			b.named(&s, vs[i].Name)
			if _, held := slices.BinarySearchFunc(servers[:entries], &s, func(e row, s *row) int { return b.compareNames(&e, s) }); !held {
				b.history(&s, vs)
				s.version = b.versionIndex("") // no entry's
				servers = append(servers, s)
				taken[vs[i].Name] = true
			}
		}
	}
	b.mergeTail(servers, entries)
	b.spread(servers)
	a.view = b.v
	return b.v, nil
}

// deleted reports whether an entry's status is deleted (official's): only
// a registry's metadata says so, and the others' are not read.
func deleted(e *mcpdir.Entry) bool {
	_, meta := e.Extra.Get("registry_meta")
	_, status := e.Extra.Get("registry_status")
	return (meta || status) && official(e).Status == mcpdir.StatusDeleted
}

// ownRow is the version of a server that its entry serves: the one the
// entry is at. That is the latest, but for a moment after a publish (the
// history read before the directory reads the new entry), or for good
// when an admin edited the entry, the entry is at an older version: it is
// served there, and the latest from the history, so that a row is served
// as the version its place in the list says and no version is served
// twice. An entry at a version not in the history is served as the
// latest.
func ownRow(id, version string, versions []*mcpdir.ServerVersion, latest *mcpdir.ServerVersion) *mcpdir.ServerVersion {
	if id == "" {
		return nil
	}
	if version == latest.Version {
		return latest
	}
	for _, h := range versions {
		if h.Version == version {
			return h
		}
	}
	return latest
}

// dedupe is the name of an entry whose derived name another holds: the
// name with "-" and its id's first eight characters.
func dedupe(name, id string) string {
	id = strings.ReplaceAll(id, "-", "")
	return name + "-" + id[:min(8, len(id))]
}

// filter is what a request keeps of the rows.
type filter struct {
	since          time.Time
	version        string // "", "latest" or an exact version
	includeDeleted bool
}

// keeper is f over v's rows.
func (v *view) keeper(f filter) func(*row) bool {
	version, known := slices.BinarySearch(v.versions, f.version)
	// A row's time is in Unix nanoseconds, unless odd: since, when it
	// has none, is before or after every such time.
	since := f.since.UnixNano()
	fits := time.Unix(0, since).Equal(f.since)
	before := f.since.Before(time.Unix(0, 0))
	return func(r *row) bool {
		if !f.includeDeleted && r.deleted {
			return false
		}
		if !f.since.IsZero() {
			var after bool
			switch {
			case r.oddTime:
				after = v.odd[r.updated].After(f.since)
			case fits:
				after = r.updated > since
			default:
				after = before
			}
			if !after {
				return false
			}
		}
		switch f.version {
		case "":
		case "latest":
			return r.latest
		default:
			return known && r.version == uint32(version)
		}
		return true
	}
}
