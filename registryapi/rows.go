package registryapi

import (
	"cmp"
	"context"
	"maps"
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
// need of it. A row keeps no entry (the directory's are unpacked for the
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

// server is a server as the view is made: its entry's values that its rows
// need, and its versions.
type server struct {
	namespace, rest, id string
	version             string    // the entry's (serverVersion)
	updated             time.Time // the entry's
	// versions is 1 + the index of its versions in the builder's
	// histories; 0 for none, as most have.
	versions int32
	registry bool
	deleted  bool // the entry is deleted (official)
}

func compareNames(a, b *server) int {
	return cmp.Or(strings.Compare(a.namespace, b.namespace), strings.Compare(a.rest, b.rest))
}

// builder makes a view: it keeps each namespace, version and odd time
// once.
type builder struct {
	v          *view
	namespaces map[string]string
	versions   map[string]uint32 // into v.versions
	odd        map[time.Time]int64
	histories  [][]*mcpdir.ServerVersion
}

// history sets s's versions.
func (b *builder) history(s *server, vs []*mcpdir.ServerVersion) {
	if len(vs) > 0 {
		b.histories = append(b.histories, vs)
		s.versions = int32(len(b.histories))
	}
}

// versionsOf is s's versions.
func (b *builder) versionsOf(s *server) []*mcpdir.ServerVersion {
	if s.versions == 0 {
		return nil
	}
	return b.histories[s.versions-1]
}

// named sets s's name, its namespace kept once.
func (b *builder) named(s *server, name string) {
	ns, rest := splitName(name)
	if k, ok := b.namespaces[ns]; ok {
		ns = k
	} else {
		ns = strings.Clone(ns) // not the whole name it was cut from
		b.namespaces[ns] = ns
	}
	s.namespace, s.rest = ns, rest
}

// row is the server's row of version h (nil: the entry with no history).
// Rows are made in name order: the server's namespace is the last kept.
func (b *builder) row(s *server, h *mcpdir.ServerVersion, latest, own bool) row {
	r := row{rest: s.rest, id: s.id, namespace: uint32(len(b.v.namespaces) - 1), latest: latest, own: own, deleted: s.deleted}
	version, updated := s.version, time.Time{}
	if h != nil {
		b.v.heads = append(b.v.heads, h)
		r.head = uint32(len(b.v.heads))
		version, updated = h.Version, h.UpdatedAt
		if !r.fromEntry() {
			r.deleted = h.Status == mcpdir.StatusDeleted
		}
	}
	if r.fromEntry() && s.updated.After(updated) {
		updated = s.updated
	}
	r.version = b.versions[version]
	// A time is compared, never served: its instant is all that counts.
	if ns := updated.UnixNano(); time.Unix(0, ns).Equal(updated) {
		r.updated = ns
	} else {
		k, ok := b.odd[updated]
		if !ok {
			k = int64(len(b.v.odd))
			b.odd[updated] = k
			b.v.odd = append(b.v.odd, updated)
		}
		r.updated, r.oddTime = k, true
	}
	return r
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
	if a.History != nil {
		err := a.History.VersionHeads(ctx, func(v *mcpdir.ServerVersion) error {
			heads[v.EntryID()] = append(heads[v.EntryID()], v)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	b := &builder{v: &view{gen: gen, historyGen: hgen},
		namespaces: map[string]string{}, versions: map[string]uint32{}, odd: map[time.Time]int64{}}
	var servers []server
	if a.view != nil {
		// About as many as last time: a million servers grown by append
		// would be several times their size in garbage.
		servers = make([]server, 0, len(a.view.rows))
	}
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
		s := server{id: e.ID, registry: e.Source == mcpdir.SourceRegistry,
			version: serverVersion(e), deleted: deleted(e), updated: e.UpdatedAt}
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
	slices.SortFunc(servers, func(a, b server) int {
		if c := compareNames(&a, &b); c != 0 {
			return c
		}
		if a.registry != b.registry {
			if a.registry {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	for i, holder := 1, 0; i < len(servers); i++ {
		if compareNames(&servers[i], &servers[holder]) != 0 {
			holder = i
			continue
		}
		b.named(&servers[i], dedupe(servers[holder].namespace+servers[holder].rest, servers[i].id))
	}
	slices.SortFunc(servers, func(a, b server) int { return compareNames(&a, &b) })
	// The servers whose every version is deleted: served, deleted, for
	// registries that follow this one, under a name no entry holds. (A
	// server whose entry an admin removed without deleting its versions
	// is not served.)
	entries := len(servers)
	taken := map[string]bool{}
	for _, vs := range heads {
		if i := mcpdir.LatestVersion(vs); vs[i].Status == mcpdir.StatusDeleted && !taken[vs[i].Name] {
			var s server
			b.named(&s, vs[i].Name)
			if _, held := slices.BinarySearchFunc(servers[:entries], &s, func(e server, s *server) int { return compareNames(&e, s) }); !held {
				b.history(&s, vs)
				servers = append(servers, s)
				taken[vs[i].Name] = true
			}
		}
	}
	slices.SortFunc(servers, func(a, b server) int { return compareNames(&a, &b) })
	// The versions, each once, sorted: a filter finds its own by binary
	// search.
	n := 0
	for i := range servers {
		n += max(1, len(b.versionsOf(&servers[i])))
		b.versions[servers[i].version] = 0
	}
	for _, vs := range b.histories {
		for _, h := range vs {
			b.versions[h.Version] = 0
		}
	}
	v := b.v
	v.versions = slices.Sorted(maps.Keys(b.versions))
	for i, version := range v.versions {
		b.versions[version] = uint32(i)
	}
	v.rows = make([]row, 0, n)
	for i := range servers {
		s := &servers[i]
		if len(v.namespaces) == 0 || v.namespaces[len(v.namespaces)-1] != s.namespace {
			v.namespaces = append(v.namespaces, s.namespace)
		}
		if vs := b.versionsOf(s); len(vs) == 0 {
			v.rows = append(v.rows, b.row(s, nil, true, true))
		} else {
			latest := vs[mcpdir.LatestVersion(vs)]
			slices.SortFunc(vs, mcpdir.NewerVersion)
			own := ownRow(s, vs, latest)
			for _, h := range vs {
				v.rows = append(v.rows, b.row(s, h, h == latest, h == own))
			}
		}
	}
	a.view = v
	return v, nil
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
func ownRow(s *server, versions []*mcpdir.ServerVersion, latest *mcpdir.ServerVersion) *mcpdir.ServerVersion {
	if s.id == "" {
		return nil
	}
	if s.version == latest.Version {
		return latest
	}
	for _, h := range versions {
		if h.Version == s.version {
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
