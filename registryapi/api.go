// Package registryapi serves the directory through the MCP Registry's
// generic read API (GET /v0.1/servers, …/versions, …/versions/{version}),
// so that any registry client — an IDE's MCP gallery, an organisation's
// registry setting, another mcpdir's sync — can read it: every entry as a
// server.json record with the official registry's _meta and mcpdir's own
// (the entry's id, tags, live check, popularity, and the score of a
// search, which uses mcpdir's ranking). It takes the registry's writes
// too: publishing a version, deleting one, and setting the status of one
// or of all of a server's (behind an admin key: http/routes.go).
//
// Where things are: api.go holds the API and its read handlers; rows.go
// builds the list view, one row a server version, once a directory
// generation; cursor.go pages it; convert.go turns an entry into a
// server.json record that fits the schema; answers.go renders rows as the
// answers' records, with their caching headers; publish.go holds the
// write handlers and validate.go what a published record must be.
package registryapi

import (
	"context"
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
)

// Directory is the directory as the API reads it.
type Directory interface {
	// Generation changes whenever the directory does.
	Generation() uint64
	// Entries calls yield with every entry, in no order.
	Entries(yield func(*mcpdir.Entry))
	// Len is how many entries Entries yields.
	Len() int
	// Get returns an entry by id.
	Get(id string) (*mcpdir.Entry, bool)
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

// List, Versions and Version are the read API's handlers (GET
// /v0.1/servers, …/{serverName}/versions, …/versions/{version}); NoRoute
// answers any other path under /v0.1/servers/ (a server name's slash sent
// unencoded, most often) as the API answers, not with the site's HTML page.
// http/routes.go maps them.
func (a *API) List() http.Handler     { return http.HandlerFunc(a.list) }
func (a *API) Versions() http.Handler { return http.HandlerFunc(a.versions) }
func (a *API) Version() http.Handler  { return http.HandlerFunc(a.version) }
func (a *API) NoRoute() http.Handler  { return http.HandlerFunc(noRoute) }

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
	Fail(w, http.StatusNotFound, msg)
}

// list is GET /v0.1/servers: every version of every server, by name and
// newest version first, a page at a time; or, with search, the best
// matches of mcpdir's ranking, best first.
func (a *API) list(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		Fail(w, http.StatusBadRequest, "the query string is not well-formed")
		return
	}
	for _, k := range []string{"cursor", "search", "updated_since", "version", "limit", "include_deleted"} {
		if len(q.Get(k)) > maxParam {
			Fail(w, http.StatusBadRequest, k+" is too long")
			return
		}
	}
	limit := DefaultLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			Fail(w, http.StatusBadRequest, "limit must be a positive integer")
			return
		}
		limit = min(n, MaxLimit)
	}
	f := filter{version: q.Get("version")}
	if s := q.Get("updated_since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			Fail(w, http.StatusBadRequest, "updated_since must be an RFC 3339 date-time")
			return
		}
		// A client following this registry learns of deletions too.
		f.since, f.includeDeleted = t, true
	}
	if s := q.Get("include_deleted"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			Fail(w, http.StatusBadRequest, "include_deleted must be true or false")
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
			Fail(w, http.StatusBadRequest, "search: "+err.Error())
			return
		}
		offset, ok := decodeCursor(q.Get("cursor"), "s")
		if !ok {
			Fail(w, http.StatusBadRequest, "cursor is not one this registry gave")
			return
		}
		n, _ := strconv.Atoi(offset)
		// A search finds servers in the directory, each at its latest
		// version.
		keep := v.keeper(f)
		for _, h := range a.Dir.Find(mcpdir.Query{Text: text, Limit: MaxSearch}).Hits {
			lo, hi := v.entryRows(h.Entry)
			for _, rw := range v.rows[lo:hi] {
				if rw.fromEntry() && keep(&rw) {
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
			Fail(w, http.StatusBadRequest, "cursor is not one this registry gave")
			return
		}
		keep := v.keeper(f)
		i := v.after(after)
		for ; i < len(v.rows) && len(rows) < limit; i++ {
			if keep(&v.rows[i]) {
				rows = append(rows, v.rows[i])
			}
		}
		for ; i < len(v.rows); i++ {
			if keep(&v.rows[i]) {
				last := &rows[len(rows)-1]
				next = encodeCursor("n", v.name(last)+"\x00"+v.version(last))
				break
			}
		}
	}
	served, err := a.serve(r.Context(), v, rows, scores)
	if err != nil {
		a.unavailable(w, r, err)
		return
	}
	a.write(w, r, serverList{Servers: served, Metadata: metadata{NextCursor: next, Count: len(served)}})
}

// versions is GET /v0.1/servers/{serverName}/versions: the versions of a
// server, newest first.
func (a *API) versions(w http.ResponseWriter, r *http.Request) {
	v, rows, ok := a.lookup(w, r)
	if !ok {
		return
	}
	served, err := a.serve(r.Context(), v, rows, nil)
	if err != nil {
		a.unavailable(w, r, err)
		return
	}
	if len(served) == 0 {
		Fail(w, http.StatusNotFound, "Server not found")
		return
	}
	a.write(w, r, serverList{Servers: served, Metadata: metadata{Count: len(served)}})
}

// version is GET /v0.1/servers/{serverName}/versions/{version}: one version
// of a server ("latest": its latest).
func (a *API) version(w http.ResponseWriter, r *http.Request) {
	v, rows, ok := a.lookup(w, r)
	if !ok {
		return
	}
	want := r.PathValue("version")
	i := slices.IndexFunc(rows, func(rw row) bool {
		if want == "latest" {
			return rw.latest
		}
		return v.version(&rw) == want
	})
	if i < 0 {
		Fail(w, http.StatusNotFound, "Server version not found")
		return
	}
	served, err := a.serve(r.Context(), v, rows[i:i+1], nil)
	if err != nil {
		a.unavailable(w, r, err)
		return
	}
	if len(served) == 0 {
		Fail(w, http.StatusNotFound, "Server not found")
		return
	}
	a.write(w, r, served[0])
}

// lookup finds the versions of the server a path names that the request
// may see (deleted ones with include_deleted=true), or answers 404.
func (a *API) lookup(w http.ResponseWriter, r *http.Request) (*view, []row, bool) {
	name := r.PathValue("serverName")
	var f filter
	if s := r.URL.Query().Get("include_deleted"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			Fail(w, http.StatusBadRequest, "include_deleted must be true or false")
			return nil, nil, false
		}
		f.includeDeleted = b
	}
	if len(name) > maxName {
		Fail(w, http.StatusNotFound, "Server not found")
		return nil, nil, false
	}
	v, ok := a.viewOr503(w, r)
	if !ok {
		return nil, nil, false
	}
	keep := v.keeper(f)
	var rows []row
	lo, hi := v.span(name)
	for _, rw := range v.rows[lo:hi] {
		if keep(&rw) {
			rows = append(rows, rw)
		}
	}
	if len(rows) == 0 {
		Fail(w, http.StatusNotFound, "Server not found")
		return nil, nil, false
	}
	return v, rows, true
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
	Fail(w, http.StatusServiceUnavailable, "the registry is unavailable for a moment: try again")
}
