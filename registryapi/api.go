// Package registryapi serves the directory through the MCP Registry's
// generic read API (GET /v0.1/servers, …/versions, …/versions/{version}),
// so that any registry client — an IDE's MCP gallery, an organisation's
// registry setting, another mcpdir's sync — can read it: every entry as a
// server.json record with the official registry's _meta and mcpdir's own
// (the entry's id, tags, live check, popularity, and the score of a
// search, which uses mcpdir's ranking).
package registryapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
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

// API serves the registry read API over a directory.
type API struct {
	Dir Directory
	// MaxAge is how long a client may keep an answer (Cache-Control);
	// answers carry an ETag, so that a sync that finds nothing changed
	// costs a 304.
	MaxAge time.Duration

	mu   sync.Mutex
	view *view
}

// Routes maps the read API; wrap, if set, wraps each handler (a
// per-address limit, a key check).
func (a *API) Routes(mux *http.ServeMux, wrap func(http.Handler) http.Handler) {
	if wrap == nil {
		wrap = func(h http.Handler) http.Handler { return h }
	}
	mux.Handle("GET /v0.1/servers", wrap(http.HandlerFunc(a.list)))
	mux.Handle("GET /v0.1/servers/{serverName}/versions", wrap(http.HandlerFunc(a.versions)))
	mux.Handle("GET /v0.1/servers/{serverName}/versions/{version}", wrap(http.HandlerFunc(a.version)))
}

// view is the directory's servers in the order the list pages them: by
// served name. It is made again when the directory changes.
type view struct {
	gen     uint64
	servers []served
	byName  map[string]int
	byID    map[string]int
}

// served is an entry and its name in the API.
type served struct {
	name  string
	entry *mcpdir.Entry
}

// current returns the view of the directory as it is now.
func (a *API) current() *view {
	gen := a.Dir.Generation()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.view != nil && a.view.gen == gen {
		return a.view
	}
	v := &view{gen: gen}
	a.Dir.Entries(func(e *mcpdir.Entry) {
		v.servers = append(v.servers, served{name: ServedName(e), entry: e})
	})
	// Two entries may derive one name (the same server from a registry
	// and from elsewhere): the registry's, or else the first by id, keeps
	// it, and the others take their id's first characters after it.
	slices.SortFunc(v.servers, func(a, b served) int {
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
	for i := len(v.servers) - 1; i > 0; i-- {
		if v.servers[i].name == v.servers[i-1].name {
			v.servers[i].name = dedupe(v.servers[i].name, v.servers[i].entry.ID)
		}
	}
	slices.SortFunc(v.servers, func(a, b served) int { return strings.Compare(a.name, b.name) })
	v.byName = make(map[string]int, len(v.servers))
	v.byID = make(map[string]int, len(v.servers))
	for i, s := range v.servers {
		v.byName[s.name] = i
		v.byID[s.entry.ID] = i
	}
	a.view = v
	return v
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

// list is GET /v0.1/servers: every server, by name, a page at a time; or,
// with search, the best matches of mcpdir's ranking, best first.
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
	var since time.Time
	if s := q.Get("updated_since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			fail(w, http.StatusBadRequest, "updated_since must be an RFC 3339 date-time")
			return
		}
		since = t
	}
	if s := q.Get("include_deleted"); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			fail(w, http.StatusBadRequest, "include_deleted must be true or false")
			return
		}
	}
	version := q.Get("version")
	keep := func(e *mcpdir.Entry, name string) bool {
		if !since.IsZero() && !e.UpdatedAt.After(since) {
			return false
		}
		if version != "" && version != "latest" {
			if v, _ := serverVersion(e, name); v != version {
				return false
			}
		}
		return true
	}
	v := a.current()
	var out serverList
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
		res := a.Dir.Find(mcpdir.Query{Text: text, Limit: MaxSearch})
		var hits []mcpdir.Hit
		for _, h := range res.Hits {
			if i, ok := v.byID[h.Entry.ID]; ok && keep(h.Entry, v.servers[i].name) {
				hits = append(hits, h)
			}
		}
		for _, h := range hits[min(n, len(hits)):min(n+limit, len(hits))] {
			score := h.Score
			out.Servers = append(out.Servers, response(h.Entry, v.servers[v.byID[h.Entry.ID]].name, &score))
		}
		if n+limit < len(hits) {
			out.Metadata.NextCursor = encodeCursor("s", strconv.Itoa(n+limit))
		}
	} else {
		after, ok := decodeCursor(q.Get("cursor"), "n")
		if !ok {
			fail(w, http.StatusBadRequest, "cursor is not one this registry gave")
			return
		}
		// After the cursor's name: a name written since then is met if it
		// sorts later, and none is met twice.
		i, _ := slices.BinarySearchFunc(v.servers, after, func(s served, name string) int {
			if s.name <= name {
				return -1
			}
			return 1
		})
		for ; i < len(v.servers) && len(out.Servers) < limit; i++ {
			if s := v.servers[i]; keep(s.entry, s.name) {
				out.Servers = append(out.Servers, response(s.entry, s.name, nil))
			}
		}
		for ; i < len(v.servers); i++ {
			if s := v.servers[i]; keep(s.entry, s.name) {
				out.Metadata.NextCursor = encodeCursor("n", out.Servers[len(out.Servers)-1].Server["name"].(string))
				break
			}
		}
	}
	out.Metadata.Count = len(out.Servers)
	if out.Servers == nil {
		out.Servers = []Server{}
	}
	a.write(w, r, out)
}

// versions is GET /v0.1/servers/{serverName}/versions: the versions of a
// server, newest first.
func (a *API) versions(w http.ResponseWriter, r *http.Request) {
	s, ok := a.lookup(w, r)
	if !ok {
		return
	}
	a.write(w, r, serverList{Servers: []Server{response(s.entry, s.name, nil)}, Metadata: metadata{Count: 1}})
}

// version is GET /v0.1/servers/{serverName}/versions/{version}: one version
// of a server ("latest": its latest).
func (a *API) version(w http.ResponseWriter, r *http.Request) {
	s, ok := a.lookup(w, r)
	if !ok {
		return
	}
	if want := r.PathValue("version"); want != "latest" {
		if v, _ := serverVersion(s.entry, s.name); v != want {
			fail(w, http.StatusNotFound, "Server version not found")
			return
		}
	}
	a.write(w, r, response(s.entry, s.name, nil))
}

// lookup finds the server a path names, or answers 404.
func (a *API) lookup(w http.ResponseWriter, r *http.Request) (served, bool) {
	name := r.PathValue("serverName")
	if s := r.URL.Query().Get("include_deleted"); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			fail(w, http.StatusBadRequest, "include_deleted must be true or false")
			return served{}, false
		}
	}
	v := a.current()
	i, ok := v.byName[name]
	if !ok || len(name) > maxName {
		fail(w, http.StatusNotFound, "Server not found")
		return served{}, false
	}
	return v.servers[i], true
}

// serverVersion is the version a server is served at.
func serverVersion(e *mcpdir.Entry, name string) (string, map[string]any) {
	s, _ := record(e, name)
	v, _ := s["version"].(string)
	return v, s
}

// response is an entry as the API serves it, with its metadata.
func response(e *mcpdir.Entry, name string, score *float64) Server {
	s, changed := record(e, name)
	dm := directoryMeta{
		ID: e.ID, Source: e.Source, Tags: e.Tags, Official: e.IsOfficial, Verified: e.IsVerified,
		Popularity: e.Popularity, Score: score, Changed: changed,
	}
	if d, _ := s["description"].(string); d != e.Brief {
		dm.Brief = e.Brief
	}
	if e.Description != "" {
		dm.Description = e.Description
	}
	if l := e.CheckedLive(); l != nil {
		lm := &liveMeta{Status: l.Status, CheckedAt: l.CheckedAt.UTC()}
		for _, t := range l.Tools {
			lm.Tools = append(lm.Tools, t.Name)
		}
		dm.Live = lm
	}
	return Server{Server: s, Meta: map[string]any{OfficialMeta: official(e), DirectoryMeta: dm}}
}

// official is the official registry's metadata of an entry's version: a
// registry's as it published them, or this directory's own (every entry
// served is active and at its latest version).
func official(e *mcpdir.Entry) officialMeta {
	m := officialMeta{Status: "active", IsLatest: true}
	if raw, ok := e.Extra["registry_meta"]; ok && json.Unmarshal(raw, &m) == nil {
		m.IsLatest = true
	}
	if raw, ok := e.Extra["registry_status"]; ok {
		json.Unmarshal(raw, &m.Status)
	}
	if m.PublishedAt == nil && !e.CreatedAt.IsZero() {
		t := e.CreatedAt.UTC()
		m.PublishedAt = &t
	}
	if m.UpdatedAt == nil && !e.UpdatedAt.IsZero() {
		t := e.UpdatedAt.UTC()
		m.UpdatedAt = &t
	}
	if m.Status != "deprecated" && m.Status != "deleted" {
		m.Status = "active"
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
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
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
