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

// row is one version of a server: what listing, filtering and ordering
// need of it. A row keeps no entry (the directory's are unpacked for the
// walk that makes the view, each a copy): those served are read again.
type row struct {
	name string
	// id is the server's entry's: "" when every version is deleted.
	id      string
	version string
	// head is the version in the history (its record not read); nil for
	// an entry with no history, served at its own version.
	head *mcpdir.ServerVersion
	// updated is when the row last changed here: the entry's time, or the
	// version's.
	updated time.Time
	latest  bool
	// own marks the row served from the entry: the version the entry is
	// at (ownRow).
	own bool
	// deleted is the row's status: the entry's, or the version's.
	deleted bool
}

// fromEntry reports whether the row is served from the entry: the
// server's version in the directory.
func (r row) fromEntry() bool { return r.id != "" && r.own }

// server is a server as the view is made: its entry's values that its rows
// need, and its versions.
type server struct {
	name, id string
	registry bool
	version  string    // the entry's (serverVersion)
	deleted  bool      // the entry is deleted (official)
	updated  time.Time // the entry's
	versions []*mcpdir.ServerVersion
}

// row is the server's row of version h (nil: the entry with no history).
func (s *server) row(h *mcpdir.ServerVersion, latest, own bool) row {
	r := row{name: s.name, id: s.id, version: s.version, head: h, latest: latest, own: own, deleted: s.deleted}
	if h != nil {
		r.version, r.updated = h.Version, h.UpdatedAt
		if !r.fromEntry() {
			r.deleted = h.Status == mcpdir.StatusDeleted
		}
	}
	if r.fromEntry() && s.updated.After(r.updated) {
		r.updated = s.updated
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
		servers = append(servers, server{name: ServedName(e), id: e.ID, registry: e.Source == mcpdir.SourceRegistry,
			version: serverVersion(e), deleted: deleted(e), updated: e.UpdatedAt, versions: vs})
	})
	// Two entries may derive one name (the same server from a registry
	// and from elsewhere): the registry's, or else the first by id, keeps
	// it, and the others take their id's first characters after it.
	slices.SortFunc(servers, func(a, b server) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
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
	taken := make(map[string]bool, len(servers))
	for i := range servers {
		if i > 0 && servers[i].name == servers[i-1].name {
			servers[i].name = dedupe(servers[i].name, servers[i].id)
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
	n := 0
	for _, s := range servers {
		n += max(1, len(s.versions))
	}
	v := &view{gen: gen, historyGen: hgen, rows: make([]row, 0, n),
		byName: make(map[string][2]int, len(servers)), byID: make(map[string]string, len(servers))}
	for i := range servers {
		s := &servers[i]
		first := len(v.rows)
		if len(s.versions) == 0 {
			v.rows = append(v.rows, s.row(nil, true, true))
		} else {
			latest := s.versions[mcpdir.LatestVersion(s.versions)]
			slices.SortFunc(s.versions, mcpdir.NewerVersion)
			own := ownRow(s, latest)
			for _, h := range s.versions {
				v.rows = append(v.rows, s.row(h, h == latest, h == own))
			}
		}
		v.byName[s.name] = [2]int{first, len(v.rows)}
		if s.id != "" {
			v.byID[s.id] = s.name
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
func ownRow(s *server, latest *mcpdir.ServerVersion) *mcpdir.ServerVersion {
	if s.id == "" {
		return nil
	}
	if s.version == latest.Version {
		return latest
	}
	for _, h := range s.versions {
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

func (f filter) keep(r row) bool {
	if !f.includeDeleted && r.deleted {
		return false
	}
	if !f.since.IsZero() && !r.updated.After(f.since) {
		return false
	}
	switch f.version {
	case "":
	case "latest":
		return r.latest
	default:
		return r.version == f.version
	}
	return true
}
