// Package toolsearch finds tools across the directory's servers: every tool
// a server offers (mcpdir.Entry.OfferedTools) is a document of its own in an
// index of the same engine and meaning layer as servers' — its name, title
// and words first, its parameters' names and its server's name and title
// below them, its server's brief below all — kept beside the servers' index
// as entries are written.
package toolsearch

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/gencache"
	"github.com/mcpdir/mcpdir/packed"
	"github.com/mcpdir/mcpdir/search"
)

// Servers is the index of servers the tools' index follows (search.Index).
type Servers interface {
	mcpdir.SearchIndex
	Entries(yield func(*mcpdir.Entry))
	UpsertPacked(ps ...packed.Entry)
}

// PerServer is how many tools of one server a top 10 holds, unless the
// query names the server: a search for what a tool does should show what
// several servers offer, not one server's whole list. Its tools beyond
// that wait only for other servers' that score at least heldShare of them,
// within a tenth: "close a jira ticket" lists Jira's other issue tools
// before Playwright's browser_close, which has only "close".
const (
	PerServer = 3
	heldShare = 0.9
)

// maxCandidates bounds how many matches a search ranks before it applies
// PerServer.
const maxCandidates = 500

// answeringServers bounds the servers that answer a query with their
// tools (FindTools), as many as the tools a search answers at most: a
// tool of a server beyond them answers only in its own words.
const answeringServers = 100

// Index is the servers' index, followed by an index of their tools: it
// takes the servers' writes (as merge.Inner) and passes them on.
type Index struct {
	Servers
	tools *search.Index

	mu       sync.RWMutex
	byServer map[string][]string // a server's tool documents
	refs     map[string]ref      // a tool document's server and tool

	// results keeps recent answers for one generation of the servers and
	// their tools, as the servers' index keeps its own (search.Index's
	// result cache): they are shared, and read only.
	results *gencache.Cache[mcpdir.ToolResult]
}

type ref struct {
	server *mcpdir.Entry
	tool   mcpdir.Tool
}

// New returns a tools' index following servers, which must be empty.
func New(servers Servers) *Index {
	tools := search.New()
	// Two servers' tools that do the same are the choice a search for
	// tools offers, not a server's forks to fold away: "take a screenshot"
	// lists Playwright's beside Chrome DevTools', above Puppeteer's other
	// tools. PerServer keeps one server from filling a ten.
	tools.SetCollapse(false)
	// A tool's tags and description are its server's (document): the
	// search tells the tools that match a query in their own words.
	tools.SetBorrowed(true)
	return &Index{Servers: servers, tools: tools, byServer: map[string][]string{}, refs: map[string]ref{},
		results: newResults(search.DefaultResultCache)}
}

// SetResultCache sets how many tool searches' answers the index keeps (0
// keeps none), as search.Index.SetResultCache does for servers; before it
// answers any.
func (x *Index) SetResultCache(size int) { x.results = newResults(size) }

// newResults keeps size answers of up to 50 tools (a search for more
// counts once per 50).
func newResults(size int) *gencache.Cache[mcpdir.ToolResult] {
	return gencache.New(size, func(r mcpdir.ToolResult) int { return 1 + len(r.Hits)/51 })
}

// Upsert adds or replaces servers, and their tools.
func (x *Index) Upsert(entries ...*mcpdir.Entry) {
	x.Servers.Upsert(entries...)
	x.mu.Lock()
	defer x.mu.Unlock()
	var docs []*mcpdir.Entry
	var gone []string
	for _, e := range entries {
		old := x.byServer[e.ID]
		var ids []string
		for _, t := range e.OfferedTools() {
			d := document(e, t)
			ids = append(ids, d.ID)
			docs = append(docs, d)
			x.refs[d.ID] = ref{server: e, tool: t}
		}
		for _, id := range old {
			if !slices.Contains(ids, id) {
				gone = append(gone, id)
				delete(x.refs, id)
			}
		}
		if ids == nil {
			delete(x.byServer, e.ID)
		} else {
			x.byServer[e.ID] = ids
		}
	}
	x.tools.Remove(gone...)
	x.tools.Upsert(docs...)
}

// UpsertPacked adds or replaces servers that offer no tools (packed.Entry's
// Plain), dropping the tools they offered before; it unpacks the others
// for Upsert.
func (x *Index) UpsertPacked(ps ...packed.Entry) {
	plain, other := packed.SplitPlain(ps)
	x.Servers.UpsertPacked(plain...)
	x.mu.Lock()
	var gone []string
	for _, p := range plain {
		id := p.ID()
		for _, d := range x.byServer[id] {
			gone = append(gone, d)
			delete(x.refs, d)
		}
		delete(x.byServer, id)
	}
	x.tools.Remove(gone...)
	x.mu.Unlock()
	if other != nil {
		x.Upsert(other...)
	}
}

// Remove drops servers, and their tools.
func (x *Index) Remove(ids ...string) {
	x.Servers.Remove(ids...)
	x.mu.Lock()
	defer x.mu.Unlock()
	var gone []string
	for _, id := range ids {
		for _, d := range x.byServer[id] {
			gone = append(gone, d)
			delete(x.refs, d)
		}
		delete(x.byServer, id)
	}
	x.tools.Remove(gone...)
}

// document is a tool as the tools' index holds it.
func document(server *mcpdir.Entry, t mcpdir.Tool) *mcpdir.Entry {
	_, short := splitName(server.Name)
	d := &mcpdir.Entry{
		ID:    mcpdir.EntryID("tool:" + server.ID + "/" + t.Name),
		Name:  t.Name,
		Title: t.Title,
		Brief: t.Description,
		// Its server's name, title and tags are the tool's own: a tool is
		// of the concepts they name ("Open an issue" of GitHub is
		// GitHub's; Basic Memory's search_notes, tagged "notes" and
		// "obsidian", is a notes tool).
		Tags: append(append(parameters(t.InputSchema), short, server.Title), server.Tags...),
		// The server's brief comes below all.
		Description: server.Brief,
		Popularity:  server.Popularity,
		IsOfficial:  server.IsOfficial,
		IsVerified:  server.IsVerified,
		// A flagged server's tools are all left out by warnings=none.
		ToolWarnings: server.ToolWarnings,
	}
	// A tool weighs as its server does: a deprecated server's or one
	// found down comes after the maintained one's that does the same
	// (the archived reference GitHub server's create_issue after GitHub's
	// own), one found up a little before.
	if server.Deprecated() {
		d.Extra = mcpdir.NewExtra(map[string]json.RawMessage{"registry_status": json.RawMessage(`"` + mcpdir.StatusDeprecated + `"`)})
	}
	if live := server.CheckedLive(); live != nil { // its status, not the tools it listed
		r, _ := server.LiveRemote()
		d.Remotes, d.Live = []mcpdir.Remote{{URL: r.URL, Transport: r.Transport}}, &mcpdir.LiveCheck{URL: live.URL, Status: live.Status, CheckedAt: live.CheckedAt}
	}
	return d
}

// parameters are the names of a schema's top-level properties.
func parameters(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []string
	for name := range s.Properties {
		out = append(out, name)
	}
	slices.Sort(out)
	return out[:min(len(out), 32)]
}

// Generation changes whenever the servers or their tools do.
func (x *Index) Generation() uint64 { return x.Servers.Generation() + x.tools.Generation() }

// FindTools returns the best q.Limit tools for q.Text, at most PerServer
// of one server in each ten unless the query names the server.
//
// It answers nothing for a query the servers' search answers nothing for:
// the decision whether the directory is about a query is the same for
// servers and their tools ("get the weather" is no redis get), and the
// tools' own search stops its tail as the servers' does. Nor for one that
// names the server that answers it best, where that server lists no tools;
// one that names servers with tools is answered by theirs, and by others'
// only in their own words.
//
// A tool answers in its own words or with its server: a tool does not
// answer where another tool of its server says, in its own words, more of
// the query than it does and as much as it matches at all ("take a
// screenshot" is Puppeteer's screenshot tool, not its click and hover,
// which its brief's "take screenshots" brings in; "list my calendar
// events" is Microsoft 365's list-calendar-events, not its list-users);
// and a tool whose server does not answer the query answers only where
// its own words cover the whole query (Obsidian's delete_file answers
// "delete a file"; Discord's create_text_channel does not answer "send a
// text message"). Nor does one that matches less than coverFloor of what
// the best-covering tool matches.
func (x *Index) FindTools(q mcpdir.Query) mcpdir.ToolResult {
	var keyBuf [128]byte
	key := mcpdir.Query{Text: q.Text, Limit: q.Limit, Filter: mcpdir.Filter{Warnings: q.Filter.Warnings}}.AppendKey(keyBuf[:0])
	gen := x.Generation()
	if res, ok := x.results.Get(gen, key); ok {
		return res
	}
	res := x.findTools(q)
	x.results.Put(gen, string(key), res)
	return res
}

func (x *Index) findTools(q mcpdir.Query) mcpdir.ToolResult {
	top := x.Servers.Find(mcpdir.Query{Text: q.Text, Limit: answeringServers})
	if top.Total == 0 {
		return mcpdir.ToolResult{}
	}
	// A query that names the server it is best answered by asks for that
	// server's tools: where it lists none, another product's are not them
	// ("create a linear issue" is no GitHub create_issue).
	words := queryWords(q.Text)
	if s := top.Hits[0].Entry; len(s.OfferedTools()) == 0 && names(words, s) {
		return mcpdir.ToolResult{}
	}
	// The servers that answer the query; where it names some of them
	// ("create a supabase project"), those alone: another's tools answer
	// only in their own words (Neon's create_project is no Supabase one).
	answering := make(map[string]bool, len(top.Hits))
	for _, h := range top.Hits {
		if names(words, h.Entry) {
			answering[h.Entry.ID] = true
		}
	}
	if len(answering) == 0 {
		for _, h := range top.Hits {
			answering[h.Entry.ID] = true
		}
	}
	res, matches := x.tools.FindMatches(mcpdir.Query{Text: q.Text, Limit: maxCandidates, Filter: mcpdir.Filter{Warnings: q.Filter.Warnings}})
	x.mu.RLock()
	defer x.mu.RUnlock()
	said := map[string]float32{} // how much of the query a server's tools say, at most
	bestCover := float32(0)      // how much of it a tool matches, at most
	for i, h := range res.Hits {
		if r, ok := x.refs[h.Entry.ID]; ok {
			said[r.server.ID] = max(said[r.server.ID], matches[i].OwnCover)
			bestCover = max(bestCover, matches[i].Cover)
		}
	}
	out := mcpdir.ToolResult{Total: res.Total}
	perServer := map[string]int{}
	add := func(hit mcpdir.ToolHit) {
		perServer[hit.Server.ID]++
		out.Hits = append(out.Hits, hit)
		if len(out.Hits)%10 == 0 {
			clear(perServer) // the next ten start afresh
		}
	}
	var held []mcpdir.ToolHit // beyond a server's share of a ten: after the others
	for i, h := range res.Hits {
		r, ok := x.refs[h.Entry.ID]
		if !ok {
			continue
		}
		m, sibling := matches[i], said[r.server.ID]
		if m.OwnCover < sibling*(1-1e-5) && sibling >= m.Cover*(1-1e-5) || // another of its server's tools says more
			!answering[r.server.ID] && m.OwnCover < 1-1e-5 || // its server does not answer, nor do its own words
			m.Cover < coverFloor*bestCover*(1-1e-5) { // the tail
			out.Total--
			continue
		}
		hit := mcpdir.ToolHit{Server: r.server, Tool: r.tool, Score: h.Score}
		// … but not after much weaker ones: another server's tool is a
		// choice beside them, not one that merely shares a word.
		for len(held) > 0 && hit.Score < heldShare*held[0].Score {
			add(held[0])
			held = held[1:]
		}
		if perServer[r.server.ID] >= PerServer && !names(words, r.server) {
			held = append(held, hit)
			continue
		}
		add(hit)
	}
	out.Hits = append(out.Hits, held...)
	if len(out.Hits) > q.Limit {
		out.Hits = out.Hits[:q.Limit]
	}
	return out
}

// coverFloor is the least share of what the best-covering tool matches of
// a query that a tool matches to answer it: past it the tail of tools that
// share one word with the query stops ("pause music" is Spotify's playback,
// not Airflow's pause_dag; "refund a payment" Stripe's create_refund, not
// PayPal's create_invoice). A tool is narrower than its server, so the
// floor is firmer than the servers'. Chosen on a probe of 139 everyday
// tool requests on the starter (docs/BENCHMARKS.md): 0.5 left Neon's
// complete_database_migration in "complete a task"; 0.6 cut no answer a
// person would miss.
const coverFloor = 0.6

// generic are words of server names that name no server in particular.
var generic = map[string]bool{"mcp": true, "server": true, "model": true, "context": true, "protocol": true}

// names reports whether a query's words name a server: every particular
// word of its short name is among them ("github create issue" names
// github-mcp-server).
func names(words map[string]bool, server *mcpdir.Entry) bool {
	_, short := splitName(server.Name)
	n := 0
	for _, w := range queryWordList(short) {
		if generic[w] {
			continue
		}
		if !words[w] {
			return false
		}
		n++
	}
	return n > 0
}

func queryWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range queryWordList(s) {
		m[w] = true
	}
	return m
}

func queryWordList(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// splitName is a server name's namespace and short name: io.github.x/y →
// y, @scope/pkg → pkg.
func splitName(name string) (ns, short string) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}
