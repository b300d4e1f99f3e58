package registry

import (
	"context"
	"slices"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Writer is who keeps versions: the origin its records are marked with
// (mcpdir.RegistryOrigin of a followed registry, mcpdir.OriginPublish for
// this directory's publishers) and the trust that says whether its claims
// are verified.
type Writer struct {
	Origin string
	Trust  mcpdir.Trust
}

// Publisher is the writer of records published here.
func Publisher() Writer { return Writer{Origin: mcpdir.OriginPublish, Trust: mcpdir.DefaultTrust()} }

// ReasonOwned is why Keep refuses a server: its entry belongs to another
// source (docs/trust.md).
const ReasonOwned = "its entry belongs to another source"

// OwnedError is a publish of a server whose entry another source owns.
type OwnedError struct {
	Name  string
	Owner string // mcpdir.SourceLabel of the owner
}

func (e *OwnedError) Error() string {
	return "the server " + e.Name + " belongs to " + e.Owner + ": a publisher here may not change it"
}

// mayReplace reports whether w may write over a stored entry: only an
// entry a registry made, and then its own; one that predates origins; or,
// for a verifying registry, one an unverified registry made (the verified
// owner of the name takes it back).
func (w Writer) mayReplace(stored *mcpdir.Entry) bool {
	if stored.Source != mcpdir.SourceRegistry {
		return false // the starter directory's, an import's, an admin's
	}
	switch {
	case stored.Origin == w.Origin, stored.Origin == "":
		return true
	case w.Trust.VerifiesOrigin(w.Origin) && !w.Trust.VerifiesOrigin(stored.Origin):
		return true
	}
	return false
}

// owners are the servers among versions that w may not write, with the
// owner of each (those whose entry, by the id the version is served as, a
// key another directory claims included, or whose stored versions' entry
// another source owns), and those w takes back from another registry.
func (w Writer) owners(ctx context.Context, store Store, versions, stored []*mcpdir.ServerVersion) (refused map[string]*mcpdir.Entry, takeover map[string]bool, _ error) {
	idsOf := map[string][]string{} // server name → the entry ids it touches
	var ids []string
	for _, vs := range [][]*mcpdir.ServerVersion{versions, stored} {
		for _, v := range vs {
			id := v.EntryID()
			if !slices.Contains(idsOf[v.Name], id) {
				idsOf[v.Name] = append(idsOf[v.Name], id)
				ids = append(ids, id)
			}
		}
	}
	entries, err := store.EntriesByID(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[string]*mcpdir.Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	refused, takeover = map[string]*mcpdir.Entry{}, map[string]bool{}
	for name, ids := range idsOf {
		for _, id := range ids {
			e, ok := byID[id]
			switch {
			case !ok:
			case !w.mayReplace(e):
				refused[name] = e
			case e.Origin != "" && e.Origin != w.Origin:
				takeover[name] = true
			}
		}
		if refused[name] != nil {
			delete(takeover, name)
		}
	}
	return refused, takeover, nil
}

// withdrawn are the stored versions of the servers w takes back that it
// does not give: another registry's, marked deleted.
func withdrawn(takeover map[string]bool, versions, stored []*mcpdir.ServerVersion) []*mcpdir.ServerVersion {
	given := map[[2]string]bool{}
	for _, v := range versions {
		given[[2]string{v.Name, v.Version}] = true
	}
	var out []*mcpdir.ServerVersion
	for _, v := range stored {
		if takeover[v.Name] && !given[[2]string{v.Name, v.Version}] && v.Status != mcpdir.StatusDeleted {
			c := *v
			c.Status, c.StatusMessage, c.StatusChangedAt = mcpdir.StatusDeleted, "withdrawn: the server's verified owner took its name back", time.Time{}
			out = append(out, &c)
		}
	}
	return out
}
