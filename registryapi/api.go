// Package registryapi serves the directory through the MCP Registry's
// generic read API (GET /v0.1/servers, …/versions, …/versions/{version}),
// so that any registry client — an IDE's MCP gallery, an organisation's
// registry setting, another mcpdir's sync — can read it: every entry as a
// server.json record with the official registry's _meta and mcpdir's own
// (the entry's id, tags, live check, popularity, and the score of a
// search, which uses mcpdir's ranking).
package registryapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registry"
)

// Directory is the directory as the API reads it.
type Directory interface {
	// Generation changes whenever the directory does.
	Generation() uint64
	// Entries calls yield with every entry, in no order.
	Entries(yield func(*mcpdir.Entry))
	// Find is the directory's ranked search.
	Find(q mcpdir.Query) mcpdir.SearchResult
}

// History is the versions the directory keeps of registry servers
// (mcpdir.VersionStore).
type History interface {
	VersionHeads(ctx context.Context, fn func(*mcpdir.ServerVersion) error) error
	ServerVersions(ctx context.Context, names []string) ([]*mcpdir.ServerVersion, error)
}

// Page bounds: a page holds DefaultLimit servers unless the client asks
// for another number, at most MaxLimit; a search pages through its best
// MaxSearch matches.
const (
	DefaultLimit = 30
	MaxLimit     = 100
	MaxSearch    = 500
)

// maxParam bounds a query parameter's value.
const maxParam = 1024

// API serves the registry API over a directory.
type API struct {
	Dir Directory
	// History, if set, serves every version a server had; without it a
	// server is served at its entry's version alone.
	History History
	// Keep, if set, takes the write side's versions (registry.Keep); the
	// write routes answer 501 without it.
	Keep func(ctx context.Context, versions []*mcpdir.ServerVersion) error
	// Audit, if set, records each write (who acts is in the context:
	// mcpdir.ActorOf).
	Audit func(ctx context.Context, r mcpdir.AuditRecord)
	// MaxAge is how long a client may keep an answer (Cache-Control);
	// answers carry an ETag, so that a sync that finds nothing changed
	// costs a 304.
	MaxAge time.Duration
	Log    *slog.Logger
	// Insight, if set, counts the searches (search=), a query's first
	// page (package insight).
	Insight mcpdir.InsightRecorder

	historyGen atomic.Uint64
	mu         sync.Mutex
	view       *view
}

// VersionsChanged tells the API that the history changed (the change
// feed's mcpdir.ChangeVersion): the next answer reads it again.
func (a *API) VersionsChanged() { a.historyGen.Add(1) }

// Routes maps the read API; wrap, if set, wraps each handler (a
// per-address limit, a key check).
func (a *API) Routes(mux *http.ServeMux, wrap func(http.Handler) http.Handler) {
	if wrap == nil {
		wrap = func(h http.Handler) http.Handler { return h }
	}
	mux.Handle("GET /v0.1/servers", wrap(http.HandlerFunc(a.list)))
	mux.Handle("GET /v0.1/servers/{serverName}/versions", wrap(http.HandlerFunc(a.versions)))
	mux.Handle("GET /v0.1/servers/{serverName}/versions/{version}", wrap(http.HandlerFunc(a.version)))
	// Any other path under /v0.1/servers/ (a server name's slash sent
	// unencoded, most often) is answered as the API answers, not with the
	// site's HTML page.
	mux.Handle("/v0.1/servers/{rest...}", wrap(http.HandlerFunc(noRoute)))
}

// noRoute answers a path under /v0.1/servers/ that is no route: 404, and,
// when it looks like a server name with its slash unencoded, the path
// with the name encoded.
func noRoute(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/v0.1/servers/")
	msg := "no such route in the registry API"
	if name, tail, ok := strings.Cut(rest, "/versions"); ok && strings.Contains(name, "/") && (tail == "" || tail[0] == '/') {
		if n, err := url.PathUnescape(name); err == nil && len(n) <= maxParam {
			msg = "no such route: a server name is one path segment, its slash encoded as %2F: /v0.1/servers/" +
				url.PathEscape(n) + "/versions" + tail
		}
	} else if strings.Count(rest, "/") == 1 && !strings.HasSuffix(rest, "/") {
		msg += "; a server name's slash is encoded as %2F, and its versions are at /v0.1/servers/{serverName}/versions"
	}
	fail(w, http.StatusNotFound, msg)
}

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

// serverList is the list endpoints' answer.
type serverList struct {
	Servers  []Server `json:"servers"`
	Metadata metadata `json:"metadata"`
}

type metadata struct {
	NextCursor string `json:"nextCursor,omitempty"`
	Count      int    `json:"count"`
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

// list is GET /v0.1/servers: every version of every server, by name and
// newest version first, a page at a time; or, with search, the best
// matches of mcpdir's ranking, best first.
func (a *API) list(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		fail(w, http.StatusBadRequest, "the query string is not well-formed")
		return
	}
	for _, k := range []string{"cursor", "search", "updated_since", "version", "limit", "include_deleted"} {
		if len(q.Get(k)) > maxParam {
			fail(w, http.StatusBadRequest, k+" is too long")
			return
		}
	}
	limit := DefaultLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			fail(w, http.StatusBadRequest, "limit must be a positive integer")
			return
		}
		limit = min(n, MaxLimit)
	}
	f := filter{version: q.Get("version")}
	if s := q.Get("updated_since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			fail(w, http.StatusBadRequest, "updated_since must be an RFC 3339 date-time")
			return
		}
		// A client following this registry learns of deletions too.
		f.since, f.includeDeleted = t, true
	}
	if s := q.Get("include_deleted"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			fail(w, http.StatusBadRequest, "include_deleted must be true or false")
			return
		}
		f.includeDeleted = f.includeDeleted || b
	}
	v, ok := a.viewOr503(w, r)
	if !ok {
		return
	}
	var rows []row
	var scores []float64
	var next string
	if search := strings.TrimSpace(q.Get("search")); search != "" {
		text, err := mcpdir.ValidateKeywords(search)
		if err != nil {
			fail(w, http.StatusBadRequest, "search: "+err.Error())
			return
		}
		offset, ok := decodeCursor(q.Get("cursor"), "s")
		if !ok {
			fail(w, http.StatusBadRequest, "cursor is not one this registry gave")
			return
		}
		n, _ := strconv.Atoi(offset)
		// A search finds servers in the directory, each at its latest
		// version.
		for _, h := range a.Dir.Find(mcpdir.Query{Text: text, Limit: MaxSearch}).Hits {
			name, ok := v.byID[h.Entry.ID]
			if !ok {
				continue
			}
			span := v.byName[name]
			for _, rw := range v.rows[span[0]:span[1]] {
				if rw.fromEntry() && f.keep(rw) {
					rows, scores = append(rows, rw), append(scores, h.Score)
				}
			}
		}
		if a.Insight != nil && n == 0 {
			a.Insight.Searched(mcpdir.DoorRegistry, text, len(rows))
		}
		end := min(n+limit, len(rows))
		if end < len(rows) {
			next = encodeCursor("s", strconv.Itoa(end))
		}
		rows, scores = rows[min(n, len(rows)):end], scores[min(n, len(scores)):end]
	} else {
		after, ok := decodeCursor(q.Get("cursor"), "n")
		if !ok {
			fail(w, http.StatusBadRequest, "cursor is not one this registry gave")
			return
		}
		i := v.after(after)
		for ; i < len(v.rows) && len(rows) < limit; i++ {
			if f.keep(v.rows[i]) {
				rows = append(rows, v.rows[i])
			}
		}
		for ; i < len(v.rows); i++ {
			if f.keep(v.rows[i]) {
				last := rows[len(rows)-1]
				next = encodeCursor("n", last.name+"\x00"+last.version())
				break
			}
		}
	}
	out := serverList{Servers: []Server{}, Metadata: metadata{NextCursor: next, Count: len(rows)}}
	served, err := a.serve(r.Context(), rows, scores)
	if err != nil {
		a.unavailable(w, r, err)
		return
	}
	out.Servers = append(out.Servers, served...)
	a.write(w, r, out)
}

// after is the index of the first row after a list cursor's position: a
// server's name and the version last served. Versions are never removed,
// so the position stays; a server with no history has one row, whatever
// its version now. Rows written since sort where they belong: met if
// after the position, and none is met twice.
func (v *view) after(pos string) int {
	if pos == "" {
		return 0
	}
	name, version, _ := strings.Cut(pos, "\x00")
	if span, ok := v.byName[name]; ok {
		for i := span[0]; i < span[1]; i++ {
			if v.rows[i].head != nil && v.rows[i].head.Version == version {
				return i + 1
			}
		}
		return span[1]
	}
	i, _ := slices.BinarySearchFunc(v.rows, name, func(r row, name string) int {
		if r.name <= name {
			return -1
		}
		return 1
	})
	return i
}

// versions is GET /v0.1/servers/{serverName}/versions: the versions of a
// server, newest first.
func (a *API) versions(w http.ResponseWriter, r *http.Request) {
	rows, ok := a.lookup(w, r)
	if !ok {
		return
	}
	served, err := a.serve(r.Context(), rows, nil)
	if err != nil {
		a.unavailable(w, r, err)
		return
	}
	a.write(w, r, serverList{Servers: served, Metadata: metadata{Count: len(served)}})
}

// version is GET /v0.1/servers/{serverName}/versions/{version}: one version
// of a server ("latest": its latest).
func (a *API) version(w http.ResponseWriter, r *http.Request) {
	rows, ok := a.lookup(w, r)
	if !ok {
		return
	}
	want := r.PathValue("version")
	i := slices.IndexFunc(rows, func(rw row) bool {
		if want == "latest" {
			return rw.latest
		}
		return rw.version() == want
	})
	if i < 0 {
		fail(w, http.StatusNotFound, "Server version not found")
		return
	}
	served, err := a.serve(r.Context(), rows[i:i+1], nil)
	if err != nil {
		a.unavailable(w, r, err)
		return
	}
	a.write(w, r, served[0])
}

// lookup finds the versions of the server a path names that the request
// may see (deleted ones with include_deleted=true), or answers 404.
func (a *API) lookup(w http.ResponseWriter, r *http.Request) ([]row, bool) {
	name := r.PathValue("serverName")
	var f filter
	if s := r.URL.Query().Get("include_deleted"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			fail(w, http.StatusBadRequest, "include_deleted must be true or false")
			return nil, false
		}
		f.includeDeleted = b
	}
	if len(name) > maxName {
		fail(w, http.StatusNotFound, "Server not found")
		return nil, false
	}
	v, ok := a.viewOr503(w, r)
	if !ok {
		return nil, false
	}
	var rows []row
	if span, ok := v.byName[name]; ok {
		for _, rw := range v.rows[span[0]:span[1]] {
			if f.keep(rw) {
				rows = append(rows, rw)
			}
		}
	}
	if len(rows) == 0 {
		fail(w, http.StatusNotFound, "Server not found")
		return nil, false
	}
	return rows, true
}

func (a *API) viewOr503(w http.ResponseWriter, r *http.Request) (*view, bool) {
	v, err := a.current(r.Context())
	if err != nil {
		a.unavailable(w, r, err)
		return nil, false
	}
	return v, true
}

// unavailable answers 503 when the history cannot be read (the store is
// away): the registry API waits for it, search goes on.
func (a *API) unavailable(w http.ResponseWriter, r *http.Request, err error) {
	if a.Log != nil {
		a.Log.WarnContext(r.Context(), "registry API: the versions history is unavailable", "err", err)
	}
	w.Header().Set("Retry-After", "5")
	fail(w, http.StatusServiceUnavailable, "the registry is unavailable for a moment: try again")
}

// serve renders rows: from the entry, for a server's latest version in the
// directory; from the version's record, read from the history, for the
// others.
func (a *API) serve(ctx context.Context, rows []row, scores []float64) ([]Server, error) {
	var names []string
	for _, rw := range rows {
		if !rw.fromEntry() && !slices.Contains(names, rw.head.Name) {
			names = append(names, rw.head.Name)
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
		if rw.fromEntry() {
			var score *float64
			if scores != nil {
				score = &scores[i]
			}
			srv := response(rw.entry, rw.name, rw.head, score)
			if om, ok := srv.Meta[OfficialMeta].(registry.Official); ok && !rw.latest {
				om.IsLatest = false // an entry behind its history (ownRow)
				srv.Meta[OfficialMeta] = om
			}
			out = append(out, srv)
			continue
		}
		v := records[[2]string{rw.head.Name, rw.head.Version}]
		if v == nil {
			// Written since the view was made: the head is what there is.
			v = rw.head
		}
		out = append(out, historic(v, rw.name, rw.latest))
	}
	return out, nil
}

// serverVersion is the version a server is served at.
func serverVersion(e *mcpdir.Entry, name string) (string, map[string]any) {
	s, _ := record(e, name)
	v, _ := s["version"].(string)
	return v, s
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
	if raw, ok := e.Extra["registry_meta"]; ok {
		json.Unmarshal(raw, &m)
	}
	m.IsLatest = true
	if raw, ok := e.Extra["registry_status"]; ok {
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
		fail(w, http.StatusInternalServerError, "internal error")
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

// fail answers an error as the registry API does: {"error": "…"}.
func fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// Cursors are opaque to clients: a kind ("n": after a name, "s": an offset
// into a search's matches) and a value, base64url.
func encodeCursor(kind, value string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + value))
}

func decodeCursor(c, kind string) (string, bool) {
	if c == "" {
		return "", true
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	k, v, ok := strings.Cut(string(b), ":")
	if !ok || k != kind {
		return "", false
	}
	if kind == "s" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			return "", false
		}
	}
	return v, true
}
