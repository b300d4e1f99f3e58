package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

// Kept is what Keep did.
type Kept struct {
	// Versions counts the versions recorded.
	Versions int
	// Added, Updated and Unchanged count entries brought to their
	// server's latest version; Hidden counts entries removed because
	// every version of their server is deleted.
	Added, Updated, Unchanged, Hidden int
	// Edited counts servers whose entry an admin edited: it stays as the
	// admin left it.
	Edited int
	// Skipped counts versions not kept, by reason: a version whose
	// canonical form (mcpdir.CanonicalVersion) is another version's of
	// the same server ("1.0.0" kept, "v1.0.0" skipped) is one release
	// under a second name.
	Skipped map[string]int
	// Refused are the servers not kept because their entry belongs to
	// another source (ReasonOwned), by name, with the owner's label.
	Refused map[string]string
}

// ReasonVersionTaken is why Keep skips a version that is, canonically, one
// its server has under another string.
const ReasonVersionTaken = "version taken under another string"

// Entry is the directory entry of a server version: its record read as
// server.json (ServerRecord: server.json's fields alone; a directory's own
// fields in it, is_official, popularity, edited, source, tags…, are not
// the record's to say) and parsed as an import parses one, marked the
// registry's, with the record kept whole and the registry's metadata of
// the version.
func Entry(v *mcpdir.ServerVersion) (*mcpdir.Entry, error) {
	server, err := ServerRecord(v.Server)
	if err != nil {
		return nil, err
	}
	e, err := importer.ParseRecord(server)
	if err != nil {
		return nil, err
	}
	e.Source = mcpdir.SourceRegistry
	if v.EntryKey != "" && v.EntryKey != e.NaturalKey() {
		e.Key = v.EntryKey
	}
	e.CreatedAt, e.UpdatedAt = time.Time{}, time.Time{}
	extra := e.Extra.Map()
	if extra == nil {
		extra = map[string]json.RawMessage{}
	}
	extra["registry_status"], _ = json.Marshal(v.Status)
	extra["registry_meta"], _ = json.Marshal(OfficialMeta(v, true))
	// The record models what search and detail need; the registry's own
	// record stays whole beside it (environment variables, icons…).
	extra["server"] = v.Server
	e.Extra = mcpdir.NewExtra(extra)
	return e, nil
}

// Official is the official registry's metadata of a server version, as
// the registry API serves it.
type Official struct {
	Status          string     `json:"status"`
	StatusMessage   string     `json:"statusMessage,omitempty"`
	StatusChangedAt *time.Time `json:"statusChangedAt,omitempty"`
	PublishedAt     *time.Time `json:"publishedAt,omitempty"`
	UpdatedAt       *time.Time `json:"updatedAt,omitempty"`
	IsLatest        bool       `json:"isLatest"`
}

// OfficialMeta is a version's official metadata.
func OfficialMeta(v *mcpdir.ServerVersion, latest bool) Official {
	m := Official{Status: v.Status, StatusMessage: v.StatusMessage, IsLatest: latest}
	for _, t := range []struct {
		at  time.Time
		dst **time.Time
	}{{v.StatusChangedAt, &m.StatusChangedAt}, {v.PublishedAt, &m.PublishedAt}, {v.UpdatedAt, &m.UpdatedAt}} {
		if !t.at.IsZero() {
			at := t.at.UTC()
			*t.dst = &at
		}
	}
	return m
}

// Keep records versions (replacing stored ones of the same name and
// version), then brings the entry of each server they name to its latest
// version (mcpdir.LatestVersion): the entry is that version's, or there is
// none when every version is deleted. Every version must parse as an entry
// (Entry). Both steps are idempotent: after a failure between them,
// keeping the same versions again finishes the work.
func Keep(ctx context.Context, store Store, versions []*mcpdir.ServerVersion) (Kept, error) {
	return KeepAs(ctx, store, Publisher(), versions)
}

// KeepAs is Keep for writer w: its entries are marked with its origin, and
// a server whose entry another source owns is refused whole (Kept.Refused):
// a registry creates and changes only the entries it created.
func KeepAs(ctx context.Context, store Store, w Writer, versions []*mcpdir.ServerVersion) (Kept, error) {
	var k Kept
	if len(versions) == 0 {
		return k, nil
	}
	names := mcpdir.VersionNames(versions)
	stored, err := store.ServerVersions(ctx, names)
	if err != nil {
		return k, err
	}
	owned, takeover, err := w.owners(ctx, store, versions, stored)
	if err != nil {
		return k, err
	}
	versions = append(slices.Clone(versions), withdrawn(takeover, versions, stored)...)
	if len(owned) > 0 {
		k.Refused, k.Skipped = map[string]string{}, map[string]int{}
		for name, e := range owned {
			k.Refused[name] = mcpdir.SourceLabel(e.Source, e.Origin)
		}
		versions = slices.DeleteFunc(versions, func(v *mcpdir.ServerVersion) bool {
			if owned[v.Name] != nil {
				k.Skipped[ReasonOwned]++
				return true
			}
			return false
		})
		names = slices.DeleteFunc(names, func(n string) bool { return owned[n] != nil })
		stored = slices.DeleteFunc(stored, func(v *mcpdir.ServerVersion) bool { return owned[v.Name] != nil })
	}
	type key struct{ name, version string }
	have := map[key]*mcpdir.ServerVersion{}
	for _, v := range stored {
		have[key{v.Name, v.Version}] = v
	}
	// A version's updatedAt is when it last changed here, so that a
	// registry following this one with updated_since misses nothing this
	// one learnt late; a version given again unchanged is left alone.
	now := time.Now().UTC()
	// One string per release: the first a server has keeps it (versions
	// stored before the rule, under two strings, stay and may change).
	canonical := map[key]string{}
	for _, v := range stored {
		if _, ok := canonical[key{v.Name, mcpdir.CanonicalVersion(v.Version)}]; !ok {
			canonical[key{v.Name, mcpdir.CanonicalVersion(v.Version)}] = v.Version
		}
	}
	var changed []*mcpdir.ServerVersion
	for _, v := range versions {
		ck := key{v.Name, mcpdir.CanonicalVersion(v.Version)}
		if s, ok := canonical[ck]; ok && s != v.Version && have[key{v.Name, v.Version}] == nil {
			if k.Skipped == nil {
				k.Skipped = map[string]int{}
			}
			k.Skipped[ReasonVersionTaken]++
			continue
		}
		canonical[ck] = v.Version
		old, ok := have[key{v.Name, v.Version}]
		if ok && old.Status == v.Status && old.StatusMessage == v.StatusMessage && bytes.Equal(old.Server, v.Server) {
			continue
		}
		c := *v
		c.UpdatedAt = latest(v.UpdatedAt, now)
		if ok && c.PublishedAt.IsZero() {
			c.PublishedAt = old.PublishedAt
		}
		if c.PublishedAt.IsZero() {
			c.PublishedAt = c.UpdatedAt
		}
		if ok && old.Status != v.Status && c.StatusChangedAt.IsZero() {
			c.StatusChangedAt = c.UpdatedAt
		}
		have[key{v.Name, v.Version}] = &c
		changed = append(changed, &c)
	}
	if len(changed) > 0 {
		if err := store.PutVersions(ctx, changed); err != nil {
			return k, err
		}
	}
	k.Versions = len(changed)
	byName := map[string][]*mcpdir.ServerVersion{}
	for _, v := range have {
		byName[v.Name] = append(byName[v.Name], v)
	}
	var latest []*mcpdir.Entry
	var gone []string
	for _, name := range names {
		vs := byName[name]
		i := mcpdir.LatestVersion(vs)
		if i < 0 {
			continue
		}
		if vs[i].Status == mcpdir.StatusDeleted {
			gone = append(gone, vs[i].EntryID())
			continue
		}
		e, err := Entry(vs[i])
		if err != nil {
			return k, fmt.Errorf("server %s version %s: %w", name, vs[i].Version, err)
		}
		e.Origin = w.Origin
		latest = append(latest, e)
	}
	// An entry an admin edited stays as the admin left it.
	ids := make([]string, len(latest))
	for i, e := range latest {
		ids[i] = mcpdir.EntryID(e.NaturalKey())
	}
	entries, err := store.EntriesByID(ctx, ids)
	if err != nil {
		return k, err
	}
	edited := map[string]bool{}
	for _, e := range entries {
		edited[e.ID] = e.Edited
	}
	keep := latest[:0]
	for i, e := range latest {
		if edited[ids[i]] {
			k.Edited++
			continue
		}
		keep = append(keep, e)
	}
	if len(keep) > 0 {
		res, err := store.UpsertEntries(ctx, keep)
		if err != nil {
			return k, err
		}
		k.Added, k.Updated, k.Unchanged = res.Added, res.Updated, res.Unchanged
	}
	if len(gone) > 0 {
		n, err := store.DeleteEntries(ctx, gone)
		if err != nil {
			return k, err
		}
		k.Hidden = n
	}
	return k, nil
}

// NewVersion is a server version from a record, checked as an entry
// would be: the record's name (ValidName) and version
// (mcpdir.ValidVersion), the entry it is served as. A record's fault is a
// *mcpdir.RecordError.
func NewVersion(server json.RawMessage, status string, published, updated time.Time) (*mcpdir.ServerVersion, error) {
	v := &mcpdir.ServerVersion{Server: server, Status: status, PublishedAt: published, UpdatedAt: updated}
	e, err := Entry(v)
	if err != nil {
		return nil, err
	}
	var head struct {
		Name    json.RawMessage `json:"name"`
		Version json.RawMessage `json:"version"`
	}
	_ = json.Unmarshal(server, &head)
	var name, version string
	if json.Unmarshal(head.Name, &name) != nil || name == "" {
		return nil, &mcpdir.RecordError{Reason: "missing name"}
	}
	if json.Unmarshal(head.Version, &version) != nil || version == "" {
		return nil, &mcpdir.RecordError{Reason: "missing version"}
	}
	if err := ValidName(name); err != nil {
		return nil, err
	}
	if err := mcpdir.ValidVersion(version); err != nil {
		return nil, err
	}
	v.Name, v.Version, v.EntryKey = name, version, e.NaturalKey()
	return v, nil
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// errRecord reports whether err is a record's fault rather than the store's.
func errRecord(err error) (*mcpdir.RecordError, bool) { return errors.AsType[*mcpdir.RecordError](err) }
