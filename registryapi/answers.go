package registryapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
)

// serverList is the list endpoints' answer.
type serverList struct {
	Servers  []Server `json:"servers"`
	Metadata metadata `json:"metadata"`
}

type metadata struct {
	NextCursor string `json:"nextCursor,omitempty"`
	Count      int    `json:"count"`
}

// serve renders rows: from the entry, for a server's latest version in the
// directory; from the version's record, read from the history, for the
// others. A row whose entry the directory no longer has (removed, or
// merged into another, since the view was made) is left out, as it is
// once the view is made again.
func (a *API) serve(ctx context.Context, v *view, rows []row, scores []float64) ([]Server, error) {
	var names []string
	for _, rw := range rows {
		if h := v.head(&rw); !rw.fromEntry() && !slices.Contains(names, h.Name) {
			names = append(names, h.Name)
		}
	}
	records := map[[2]string]*mcpdir.ServerVersion{}
	if len(names) > 0 {
		vs, err := a.History.ServerVersions(ctx, names)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			records[[2]string{v.Name, v.Version}] = v
		}
	}
	out := make([]Server, 0, len(rows))
	for i, rw := range rows {
		head, name := v.head(&rw), v.name(&rw)
		if rw.fromEntry() {
			var score *float64
			if scores != nil {
				score = &scores[i]
			}
			e, ok := a.Dir.Get(rw.id)
			if !ok || e.ID != rw.id {
				continue
			}
			srv := response(e, name, head, score)
			if om, ok := srv.Meta[OfficialMeta].(registry.Official); ok && !rw.latest {
				om.IsLatest = false // an entry behind its history (ownRow)
				srv.Meta[OfficialMeta] = om
			}
			out = append(out, srv)
			continue
		}
		r := records[[2]string{head.Name, head.Version}]
		if r == nil {
			// Written since the view was made: the head is what there is.
			r = head
		}
		out = append(out, historic(r, name, rw.latest))
	}
	return out, nil
}

// serverVersion is the version an entry is served at (its record's),
// without making its record.
func serverVersion(e *mcpdir.Entry) string {
	if v, _ := published(e)["version"].(string); v != "" && len(v) <= maxVersion {
		return v
	}
	return versionOf(e)
}

// response is an entry as the API serves it, with its metadata; head is
// its version in the history, if it has one.
func response(e *mcpdir.Entry, name string, head *mcpdir.ServerVersion, score *float64) Server {
	s, changed := record(e, name)
	dm := directoryMeta{
		ID: e.ID, Key: e.NaturalKey(), Source: e.Source, Tags: e.Tags, Official: e.IsOfficial, Verified: e.IsVerified,
		Popularity: e.Popularity, ToolWarnings: len(e.ToolWarnings), Score: score, Changed: changed,
	}
	if d, _ := s["description"].(string); d != e.Brief {
		dm.Brief = e.Brief
	}
	if e.Description != "" {
		dm.Description = e.Description
	}
	if l := e.CheckedLive(); l != nil {
		lm := &liveMeta{Status: l.Status, CheckedAt: l.CheckedAt.UTC(), ProtocolVersions: l.ProtocolVersions}
		for _, t := range l.Tools {
			lm.Tools = append(lm.Tools, t.Name)
		}
		if len(l.Tools) > 0 {
			lm.ToolsFingerprint = mcpdir.ToolsFingerprint(l.Tools)
		}
		if at := l.ToolsChanged(); !at.IsZero() {
			at = at.UTC()
			lm.ToolsChangedAt = &at
		}
		dm.Live = lm
	}
	om := official(e)
	if head != nil && (om.UpdatedAt == nil || head.UpdatedAt.After(*om.UpdatedAt)) {
		t := head.UpdatedAt.UTC()
		om.UpdatedAt = &t
	}
	return Server{Server: s, Meta: map[string]any{OfficialMeta: om, DirectoryMeta: dm}}
}

// historic is a version other than the directory's entry: an older one, or
// one of a server whose every version is deleted.
func historic(v *mcpdir.ServerVersion, name string, latest bool) Server {
	s := map[string]any{}
	if json.Unmarshal(v.Server, &s) != nil {
		s = map[string]any{}
	}
	if s["version"] == nil {
		s["version"] = v.Version
	}
	changed := fitRecord(s, name)
	return Server{Server: s, Meta: map[string]any{
		OfficialMeta:  registry.OfficialMeta(v, latest),
		DirectoryMeta: directoryMeta{ID: v.EntryID(), Key: v.EntryKey, Source: mcpdir.SourceRegistry, Changed: changed},
	}}
}

// official is the official registry's metadata of an entry's version: a
// registry's as it published them, or this directory's own (every entry
// served is active and at its latest version). Its updatedAt is when the
// entry last changed here, never earlier than the registry's.
func official(e *mcpdir.Entry) registry.Official {
	m := registry.Official{Status: mcpdir.StatusActive}
	if raw, ok := e.Extra.Get("registry_meta"); ok {
		json.Unmarshal(raw, &m)
	}
	m.IsLatest = true
	if raw, ok := e.Extra.Get("registry_status"); ok {
		json.Unmarshal(raw, &m.Status)
	}
	if m.PublishedAt == nil && !e.CreatedAt.IsZero() {
		t := e.CreatedAt.UTC()
		m.PublishedAt = &t
	}
	if u := e.UpdatedAt.UTC(); !u.IsZero() && (m.UpdatedAt == nil || u.After(*m.UpdatedAt)) {
		m.UpdatedAt = &u
	}
	if m.Status != mcpdir.StatusDeprecated && m.Status != mcpdir.StatusDeleted {
		m.Status = mcpdir.StatusActive
	}
	return m
}

// write answers v as JSON with an ETag of its bytes, or 304 when the client
// has them.
func (a *API) write(w http.ResponseWriter, r *http.Request, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		Fail(w, http.StatusInternalServerError, "internal error")
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(a.MaxAge/time.Second)))
	h.Set("Vary", "Authorization")
	if match := r.Header.Get("If-None-Match"); match != "" && (match == etag || match == "*" || slices.Contains(strings.Split(match, ", "), etag)) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	w.Write(body)
}

// Fail answers an error as the registry API does: {"error": "…"}; also the
// guard in front of it (http's key and rate checks).
func Fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
