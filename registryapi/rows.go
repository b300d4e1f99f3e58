package registryapi

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
)

// view is the directory's servers in the order the list pages them: by
// served name, each server's versions newest first. It is made again
// when the directory or its history changes.
type view struct {
	gen, historyGen uint64
	rows            []row
	byName          map[string][2]int // a server's rows, [first, end)
	byID            map[string]string // an entry's served name
}

// row is one version of a server.
type row struct {
	name string
	// entry is the server's entry: nil when every version is deleted.
	entry *mcpdir.Entry
	// head is the version in the history (its record not read); nil for
	// an entry with no history, served at its own version.
	head   *mcpdir.ServerVersion
	latest bool
	// own marks the row served from the entry: the version the entry is
	// at (ownRow).
	own bool
}

// fromEntry reports whether the row is served from the entry: the
// server's version in the directory.
func (r row) fromEntry() bool { return r.entry != nil && r.own }

func (r row) version() string {
	if r.head != nil {
		return r.head.Version
	}
	v, _ := serverVersion(r.entry, r.name)
	return v
}

func (r row) status() string {
	if r.fromEntry() {
		return official(r.entry).Status
	}
	return r.head.Status
}

// updated is when the row last changed here: the entry's time, or the
// version's.
func (r row) updated() time.Time {
	t := time.Time{}
	if r.head != nil {
		t = r.head.UpdatedAt
	}
	if r.fromEntry() && r.entry.UpdatedAt.After(t) {
		t = r.entry.UpdatedAt
	}
	return t
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
	type server struct {
		name     string
		entry    *mcpdir.Entry
		versions []*mcpdir.ServerVersion
	}
	var servers []server
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
		servers = append(servers, server{name: ServedName(e), entry: e, versions: vs})
	})
	// Two entries may derive one name (the same server from a registry
	// and from elsewhere): the registry's, or else the first by id, keeps
	// it, and the others take their id's first characters after it.
	slices.SortFunc(servers, func(a, b server) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if ar, br := a.entry.Source == mcpdir.SourceRegistry, b.entry.Source == mcpdir.SourceRegistry; ar != br {
			if ar {
				return -1
			}
			return 1
		}
		return strings.Compare(a.entry.ID, b.entry.ID)
	})
	taken := make(map[string]bool, len(servers))
	for i := range servers {
		if i > 0 && servers[i].name == servers[i-1].name {
			servers[i].name = dedupe(servers[i].name, servers[i].entry.ID)
		}
		taken[servers[i].name] = true
	}
	// The servers whose every version is deleted: served, deleted, for
	// registries that follow this one, under a name no entry holds. (A
	// server whose entry an admin removed without deleting its versions
	// is not served.)
	for _, vs := range heads {
		if i := mcpdir.LatestVersion(vs); vs[i].Status == mcpdir.StatusDeleted && !taken[vs[i].Name] {
			servers = append(servers, server{name: vs[i].Name, versions: vs})
			taken[vs[i].Name] = true
		}
	}
	slices.SortFunc(servers, func(a, b server) int { return strings.Compare(a.name, b.name) })
	v := &view{gen: gen, historyGen: hgen, byName: make(map[string][2]int, len(servers)), byID: make(map[string]string, len(servers))}
	for _, s := range servers {
		first := len(v.rows)
		if len(s.versions) == 0 {
			v.rows = append(v.rows, row{name: s.name, entry: s.entry, latest: true, own: true})
		} else {
			latest := s.versions[mcpdir.LatestVersion(s.versions)]
			slices.SortFunc(s.versions, mcpdir.NewerVersion)
			own := ownRow(s.entry, s.name, s.versions, latest)
			for _, h := range s.versions {
				v.rows = append(v.rows, row{name: s.name, entry: s.entry, head: h, latest: h == latest, own: h == own})
			}
		}
		v.byName[s.name] = [2]int{first, len(v.rows)}
		if s.entry != nil {
			v.byID[s.entry.ID] = s.name
		}
	}
	a.view = v
	return v, nil
}

// ownRow is the version of a server that its entry serves: the one the
// entry is at. That is the latest, but for a moment after a publish (the
// history read before the directory reads the new entry), or for good
// when an admin edited the entry, the entry is at an older version: it is
// served there, and the latest from the history, so that a row is served
// as the version its place in the list says and no version is served
// twice. An entry at a version not in the history is served as the
// latest.
func ownRow(e *mcpdir.Entry, name string, versions []*mcpdir.ServerVersion, latest *mcpdir.ServerVersion) *mcpdir.ServerVersion {
	if e == nil {
		return nil
	}
	ev, _ := serverVersion(e, name)
	if ev == latest.Version {
		return latest
	}
	for _, h := range versions {
		if h.Version == ev {
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

func (f filter) keep(r row) bool {
	if !f.includeDeleted && r.status() == mcpdir.StatusDeleted {
		return false
	}
	if !f.since.IsZero() && !r.updated().After(f.since) {
		return false
	}
	switch f.version {
	case "":
	case "latest":
		return r.latest
	default:
		return r.version() == f.version
	}
	return true
}
