package search

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// entry makes a test entry; its id derives from its name.
func entry(name, brief string, popularity int64) *mcpdir.Entry {
	return &mcpdir.Entry{ID: mcpdir.EntryID("name:" + name), Name: name, Brief: brief, Popularity: popularity}
}

// testEntries is a small directory covering what the tests search for,
// among unrelated entries.
func testEntries() []*mcpdir.Entry {
	return []*mcpdir.Entry{
		entry("@modelcontextprotocol/server-postgres", "MCP server for interacting with PostgreSQL databases", 250000),
		entry("postgres-mcp", "A Model Context Protocol server for Postgres", 100),
		entry("pglens", "PostgreSQL MCP server for schema inspection", 0),
		entry("postgis-tools", "Spatial queries with PostGIS", 0),
		entry("poster-design-mcp", "Design posters with AI", 0),
		entry("mcp-kubernetes", "Manage Kubernetes clusters from your agent", 500),
		entry("k8s-pilot", "Operate k8s deployments", 0),
		entry("github-mcp-server", "MCP server for the GitHub API: issues, pull requests", 9000),
		entry("playwright-mcp", "Browser automation with Playwright", 7000),
		entry("confluence-mcp", "Read and write Confluence pages", 300),
		entry("elasticsearch-mcp", "Query Elasticsearch indices", 200),
		entry("mssql-mcp", "Query MSSQL databases", 0),
		entry("spotify-mcp", "Control Spotify playback", 100),
		entry("edge-tts-mcp", "A Text-to-Speech (TTS) service using Edge", 0),
		entry("voice-out", "Speak replies aloud with TTS", 0),
		entry("sqlite-explorer", "Query a SQL database (SQLite) with natural language", 0),
		entry("mysql-mcp", "MySQL database access for agents", 0),
		entry("pdf2md-mcp", "Convert PDF files to Markdown", 0),
		entry("md-to-pdf-mcp", "Convert Markdown to PDF documents", 0),
		entry("elevenlabs-mcp", "ElevenLabs voice generation", 0),
		entry("slack-mcp", "Post messages to Slack channels", 1000),
		entry("weather-mcp", "Weather forecasts for any city", 50),
		entry("todo-mcp", "Add your description here", 0),
		entry("todo-list-mcp", "Manage todo lists and tasks", 0),
		entry("notes-mcp", "Take notes in markdown", 0),
	}
}

func newTestIndex(t *testing.T) *Index { return indexOf(testEntries()) }

// indexOf is an index of the entries.
func indexOf(entries []*mcpdir.Entry) *Index {
	x := New()
	x.Upsert(entries...)
	return x
}

func names(r mcpdir.SearchResult) []string {
	var ns []string
	for _, h := range r.Hits {
		ns = append(ns, h.Entry.Name)
	}
	return ns
}

// rankOf is a name's position in the hits, or -1.
func rankOf(r mcpdir.SearchResult, name string) int {
	return slices.Index(names(r), name)
}

func TestSearchFindsWhatWasMeant(t *testing.T) {
	x := newTestIndex(t)
	tests := []struct {
		query string
		want  []string // in the top 3
	}{
		{"postgres", []string{"@modelcontextprotocol/server-postgres", "postgres-mcp"}},
		{"databases", []string{"@modelcontextprotocol/server-postgres"}},         // stemming
		{"postgress", []string{"@modelcontextprotocol/server-postgres"}},         // typo
		{"kubernets", []string{"mcp-kubernetes"}},                                // typo
		{"gihtub", []string{"github-mcp-server"}},                                // transposition
		{"playwrite", []string{"playwright-mcp"}},                                // two edits
		{"confluance", []string{"confluence-mcp"}},                               // typo
		{"eleasticsearch", []string{"elasticsearch-mcp"}},                        // typo
		{"spotfy", []string{"spotify-mcp"}},                                      // typo
		{"k8s", []string{"mcp-kubernetes", "k8s-pilot"}},                         // synonym
		{"kubernetes", []string{"mcp-kubernetes", "k8s-pilot"}},                  // synonym
		{"pg", []string{"postgres-mcp"}},                                         // abbreviation
		{"gh", []string{"github-mcp-server"}},                                    // abbreviation
		{"tts", []string{"edge-tts-mcp", "voice-out"}},                           // phrase short form
		{"text to speech", []string{"edge-tts-mcp", "voice-out"}},                // and back
		{"SQL Server tables", []string{"mssql-mcp"}},                             // a product's short name
		{"eleven labs", []string{"elevenlabs-mcp"}},                              // joined words
		{"find an mcp server for slack", []string{"slack-mcp"}},                  // agent phrasing
		{"query a sql database", []string{"sqlite-explorer"}},                    // multi-word
		{"mcp server for weather forecasts", []string{"weather-mcp"}},            // stop and weak words
		{"PostgresMCP", []string{"@modelcontextprotocol/server-postgres"}},       // a compound
		{"Kubernetes clusters", []string{"mcp-kubernetes"}},                      // case
		{"convert pdf to markdown", []string{"pdf2md-mcp"}},                      // direction
		{"an up-to-date weather forecast", []string{"weather-mcp"}},              // idiom
		{"postgre", []string{"@modelcontextprotocol/server-postgres", "pglens"}}, // prefix
	}
	for _, tt := range tests {
		r := x.Search(tt.query, 10)
		top := names(r)[:min(3, len(r.Hits))]
		for _, w := range tt.want {
			if !slices.Contains(top, w) {
				t.Errorf("Search(%q) top 3 = %q, want %q among them", tt.query, top, w)
			}
		}
	}
}

func TestExactOutranksNearMisses(t *testing.T) {
	x := newTestIndex(t)
	r := x.Search("postgres", 10)
	for _, miss := range []string{"postgis-tools", "poster-design-mcp"} {
		if i := rankOf(r, miss); i >= 0 && i < rankOf(r, "postgres-mcp") {
			t.Errorf("postgres: %s ranks above postgres-mcp: %q", miss, names(r))
		}
	}
	// A prefix match counts, below exact ones.
	if i, j := rankOf(r, "pglens"), rankOf(r, "postgres-mcp"); i < 0 || i < j {
		t.Errorf("postgres: want pglens (PostgreSQL) found below postgres-mcp: %q", names(r))
	}
	// Direction: PDF to Markdown before Markdown to PDF.
	r = x.Search("convert pdf to markdown", 10)
	if rankOf(r, "pdf2md-mcp") > rankOf(r, "md-to-pdf-mcp") {
		t.Errorf("pdf to markdown: %q", names(r))
	}
}

func TestNonsenseFindsNothing(t *testing.T) {
	x := newTestIndex(t)
	for _, q := range []string{"zxqv plorbnik", "height of mount everest", "", "   ", "the of and", "!!!"} {
		if r := x.Search(q, 10); r.Total != 0 || len(r.Hits) != 0 {
			t.Errorf("Search(%q) = %d hits of %d, want none", q, len(r.Hits), r.Total)
		}
	}
	// Phrasing words alone still search.
	if r := x.Search("mcp server", 10); r.Total == 0 {
		t.Error(`Search("mcp server") found nothing`)
	}
}

func TestPlaceholderBriefRanksLower(t *testing.T) {
	x := newTestIndex(t)
	r := x.Search("todo", 10)
	if i, j := rankOf(r, "todo-mcp"), rankOf(r, "todo-list-mcp"); i < 0 || j < 0 || i < j {
		t.Errorf("todo: placeholder brief should rank below a real one: %q", names(r))
	}
}

// A name reserved for a server to come says nothing of what it will do:
// it ranks below the servers that do what the query asks.
func TestReservedNameRanksLower(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("datasphere-mcp", "This name has been reserved using Reserver", 0),
		entry("table-booking-mcp", "Book a table at restaurants near you", 0),
		entry("reservation-desk", "Make and manage restaurant reservations", 0),
	})
	for _, q := range []string{"book", "reserve a table"} {
		r := x.Search(q, 10)
		if i, j := rankOf(r, "datasphere-mcp"), rankOf(r, "table-booking-mcp"); j < 0 || i >= 0 && i < j {
			t.Errorf("%s: %q, want the reserved name below table-booking-mcp", q, names(r))
		}
		if i, j := rankOf(r, "datasphere-mcp"), rankOf(r, "reservation-desk"); j >= 0 && i >= 0 && i < j {
			t.Errorf("%s: %q, want the reserved name below reservation-desk", q, names(r))
		}
	}
}

func TestNearDuplicatesCollapse(t *testing.T) {
	x := New()
	brief := "A Model Context Protocol server providing tools to read, search, and manipulate Git repositories"
	var es []*mcpdir.Entry
	es = append(es, entry("mcp-server-git", brief, 100))
	for _, fork := range []string{"kzms-mcp-server-git", "mseep-mcp-server-git", "iflow-mcp-server-git", "acme-mcp-server-git"} {
		es = append(es, entry(fork, brief, 0))
	}
	for i := range 12 {
		es = append(es, entry(fmt.Sprintf("tool-%d", i), fmt.Sprintf("Helper number %d for the commits of a git repository", i), 0))
	}
	x.Upsert(es...)
	r := x.Search("git", 50)
	if r.Total != len(es) {
		t.Errorf("Total = %d, want %d: duplicates are moved, not dropped", r.Total, len(es))
	}
	top := names(r)[:10]
	dups := 0
	for _, n := range top {
		if strings.HasSuffix(n, "mcp-server-git") {
			dups++
		}
	}
	if dups != 1 || !slices.Contains(top, "mcp-server-git") {
		t.Errorf("top 10 = %q: want the original and no fork of it", top)
	}
	for i := 1; i < len(r.Hits); i++ {
		if r.Hits[i].Score > r.Hits[i-1].Score {
			t.Fatalf("scores not in order at %d: %v > %v", i, r.Hits[i].Score, r.Hits[i-1].Score)
		}
	}
}

func TestDeterministicTies(t *testing.T) {
	x := New()
	x.Upsert(
		entry("notes-beta", "notes", 5),
		entry("notes-alpha", "notes", 5),
		entry("notes-gamma", "notes", 9),
	)
	want := []string{"notes-gamma", "notes-alpha", "notes-beta"} // popularity, then name
	for range 5 {
		if got := names(x.Search("notes", 10)); !slices.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	// Popularities a tie key cannot hold (below zero: the same prior) are
	// still told apart, before the name.
	z := New()
	z.Upsert(entry("notes-alpha", "notes", -7), entry("notes-zeta", "notes", -1), entry("notes-beta", "notes", -7))
	if got, want := names(z.Search("notes", 10)), []string{"notes-zeta", "notes-alpha", "notes-beta"}; !slices.Equal(got, want) {
		t.Errorf("popularities below zero: got %q, want %q", got, want)
	}
	// Same name and popularity: by id.
	y := New()
	e1, e2 := entry("same", "notes", 0), entry("same", "notes", 0)
	e1.ID, e2.ID = "b", "a"
	y.Upsert(e1, e2)
	if r := y.Search("notes", 10); r.Hits[0].Entry.ID != "a" {
		t.Errorf("tie on name not broken by id: %s first", r.Hits[0].Entry.ID)
	}
}

func TestUpsertRemoveGet(t *testing.T) {
	x := newTestIndex(t)
	n := len(testEntries())
	if x.Len() != n {
		t.Fatalf("Len = %d, want %d", x.Len(), n)
	}
	slack := entry("slack-mcp", "Post messages to Slack channels", 1000)
	if e, ok := x.Get(slack.ID); !ok || e.Name != "slack-mcp" {
		t.Fatalf("Get = %v, %v", e, ok)
	}
	// Replace: same id, new text.
	x.Upsert(entry("slack-mcp", "Send emails through Mailgun", 1000))
	if x.Len() != n {
		t.Errorf("Len after replace = %d, want %d", x.Len(), n)
	}
	if r := x.Search("mailgun", 10); rankOf(r, "slack-mcp") != 0 {
		t.Errorf("replaced entry not found by its new text: %q", names(r))
	}
	// Its old words are gone from the index ("channels" may still find it
	// as a Slack server, through the concept its name gives it).
	if id, ok := x.termIDs["channels"]; !ok || x.terms[id].df != 0 {
		t.Errorf("replaced entry's old words still indexed")
	}
	x.Remove(slack.ID, "no-such-id")
	if _, ok := x.Get(slack.ID); ok || x.Len() != n-1 {
		t.Errorf("after Remove: Get ok = %v, Len = %d", ok, x.Len())
	}
	if r := x.Search("mailgun", 10); r.Total != 0 {
		t.Errorf("removed entry still found: %q", names(r))
	}
	x.Upsert(nil, &mcpdir.Entry{Name: "no id"}) // ignored
	if x.Len() != n-1 {
		t.Errorf("entries without id were indexed: Len = %d", x.Len())
	}
}

func TestCompaction(t *testing.T) {
	x := New()
	var es []*mcpdir.Entry
	for i := range 3000 {
		es = append(es, entry(fmt.Sprintf("widget-tool-%d", i), fmt.Sprintf("widget number w%d", i), int64(i)))
	}
	// Replacing everything twice leaves enough dead ordinals to renumber.
	for range 3 {
		x.Upsert(es...)
	}
	if len(x.docs) >= 2*len(es) || len(x.docs)-x.dead != len(es) {
		t.Errorf("not compacted: %d ordinals, %d dead", len(x.docs), x.dead)
	}
	r := x.Search("widget", 5)
	if r.Total != len(es) || r.Hits[0].Entry.Name != "widget-tool-2999" {
		t.Errorf("after compaction: total %d, first %s", r.Total, r.Hits[0].Entry.Name)
	}
	if r := x.Search("w1234", 5); len(r.Hits) == 0 || r.Hits[0].Entry.Name != "widget-tool-1234" {
		t.Errorf("after compaction: w1234 → %q", names(r))
	}
}

// TestCompactionKeepsWhatRankingReads checks that renumbering moves what a
// search reads of an ordinal apart from its doc (the priors, facet values
// and tie keys; the entries are all English, so not the languages): after
// it, filtered searches with facets answer as an index that was never
// renumbered does, ties and all.
func TestCompactionKeepsWhatRankingReads(t *testing.T) {
	var es []*mcpdir.Entry
	for i := range 3000 {
		// Equal scores (ties) told apart by the tie key: a name's first bytes.
		e := entry(fmt.Sprintf("%04d-gadget", i), "gadget server", int64(i%7))
		e.Tags = []string{fmt.Sprintf("t%d", i%5)}
		e.Packages = []mcpdir.Package{{RegistryType: []string{"npm", "pypi"}[i%2], Identifier: e.Name}}
		e.Transports = []string{[]string{mcpdir.TransportStdio, "sse"}[i%3%2]}
		e.IsOfficial = i%11 == 0
		es = append(es, e)
	}
	x := New()
	for range 3 { // replacing everything twice leaves enough dead ordinals to renumber
		x.Upsert(es...)
	}
	if len(x.docs) >= 2*len(es) {
		t.Fatalf("not compacted: %d ordinals, %d dead", len(x.docs), x.dead)
	}
	fresh := New()
	fresh.Upsert(es...)
	yes := true
	for _, f := range []mcpdir.Filter{{}, {Tags: []string{"t3"}}, {Registry: "pypi"}, {Transport: "sse", Official: &yes}} {
		q := mcpdir.Query{Text: "gadget", Limit: 20, Filter: f, Facets: true}
		got, want := x.Find(q), fresh.Find(q)
		if !reflect.DeepEqual(names(got), names(want)) || got.Total != want.Total || !reflect.DeepEqual(got.Facets, want.Facets) {
			t.Errorf("filter %+v after compaction: %d %q %+v, want %d %q %+v", f,
				got.Total, names(got), got.Facets, want.Total, names(want), want.Facets)
		}
	}
}

func TestQueryBounds(t *testing.T) {
	x := newTestIndex(t)
	long := strings.Repeat("slack ", 1000)
	if r := x.Search(long, 10); rankOf(r, "slack-mcp") != 0 {
		t.Errorf("long query: %q", names(r))
	}
	many := strings.Repeat("slack channels ", 30) // most words cut off
	if r := x.Search(many, 10); rankOf(r, "slack-mcp") != 0 {
		t.Errorf("many-word query: %q", names(r))
	}
	if r := x.Search("mcp", 0); len(r.Hits) != min(defaultLimit, r.Total) {
		t.Errorf("limit 0: %d hits of %d", len(r.Hits), r.Total)
	}
	if r := x.Search("mcp", 3); len(r.Hits) != 3 {
		t.Errorf("limit 3: %d hits", len(r.Hits))
	}
	if r := New().Search("slack", 10); r.Total != 0 {
		t.Error("empty index found something")
	}
}

// TestConcurrentUpsertSearch is meant for -race: searches run while entries
// are upserted and removed.
func TestConcurrentUpsertSearch(t *testing.T) {
	x := newTestIndex(t)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 300 {
				e := entry(fmt.Sprintf("gen-%d-%d", w, rng.IntN(50)), fmt.Sprintf("generated slack bridge %d", i), int64(i))
				x.Upsert(e)
				if i%7 == 0 {
					x.Remove(e.ID)
				}
			}
		}()
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				r := x.Search("slack", 10)
				if len(r.Hits) == 0 {
					t.Error("search found nothing while upserting")
					return
				}
				x.Search("postgress", 5)
				x.Get(r.Hits[0].Entry.ID)
				x.Len()
			}
		}()
	}
	wg.Wait()
}

// TestFullWindow searches words that every entry of a whole scoring window
// holds, in several forms.
func TestFullWindow(t *testing.T) {
	x := New()
	n := window + 10
	es := make([]*mcpdir.Entry, n)
	for i := range es {
		es[i] = &mcpdir.Entry{ID: fmt.Sprint(i), Name: fmt.Sprintf("gadget-%d", i), Brief: "gadgets widget"}
	}
	x.Upsert(es...)
	for range 2 { // the second search reuses the first's scratch space
		if r := x.Search("gadget widget", 10); r.Total != n || len(r.Hits) != 10 {
			t.Fatalf("total %d, %d hits; want %d, 10", r.Total, len(r.Hits), n)
		}
	}
}

// TestAnalysisFollowsUpserts checks that what is cached of query words is
// dropped when the index changes: a word's prefixes, typos and weights
// depend on the index's words.
func TestAnalysisFollowsUpserts(t *testing.T) {
	x := newTestIndex(t)
	if r := x.Search("zanzibarr", 10); r.Total != 0 {
		t.Fatalf("found %q before it was added", names(r))
	}
	x.Upsert(entry("zanzibar-mcp", "Zanzibar authorization checks", 0))
	if r := x.Search("zanzibarr", 10); rankOf(r, "zanzibar-mcp") != 0 {
		t.Errorf("typo not matched after upsert: %q", names(r))
	}
	if r := x.Search("zanzi", 10); rankOf(r, "zanzibar-mcp") != 0 {
		t.Errorf("prefix not matched after upsert: %q", names(r))
	}
	x.Remove(entry("zanzibar-mcp", "", 0).ID)
	if r := x.Search("zanzi", 10); r.Total != 0 {
		t.Errorf("found %q after removal", names(r))
	}
}

func TestSplitNamespace(t *testing.T) {
	for name, want := range map[string][2]string{
		"io.github.modelcontextprotocol/server-postgres": {"modelcontextprotocol", "server-postgres"},
		"com.cloudflare/docs":                            {"cloudflare", "docs"},
		"io.gitlab.acme.tools/runner":                    {"acme.tools", "runner"},
		"@modelcontextprotocol/server-postgres":          {"", "@modelcontextprotocol/server-postgres"},
		"mcp-server-postgres":                            {"", "mcp-server-postgres"},
		"owner/repo":                                     {"", "owner/repo"},
	} {
		if p, r := splitNamespace(name); p != want[0] || r != want[1] {
			t.Errorf("splitNamespace(%q) = %q, %q; want %q, %q", name, p, r, want[0], want[1])
		}
	}
}

// A merged entry's other names (its records from other sources) name it:
// a registry's io.github.payments-lab/agent-toolkit is found by the name
// its npm package's record has.
func TestAliasNamesAreNames(t *testing.T) {
	merged := entry("io.github.payments-lab/agent-toolkit", "Toolkit for payments agents", 0)
	merged.Aliases = []mcpdir.Alias{{ID: mcpdir.EntryID("name:@stripe/mcp"), Name: "@stripe/mcp"}}
	x := indexOf(append(testEntries(), merged))
	res := x.Search("stripe", 5)
	if len(res.Hits) == 0 || res.Hits[0].Entry.ID != merged.ID {
		t.Fatalf("stripe: %v", names(res))
	}
}

// TestNoMisspellingOfAWordQueriesDrop checks that a word is not read as a
// misspelling of one a query does not search for ("mcp", "servers"): the
// whole directory would match it ("mcap", the MCAP log format, used to
// match 27,844 of the packages corpus's 28,366 entries); nor is a word the
// lexicon knows as a concept's.
func TestNoMisspellingOfAWordQueriesDrop(t *testing.T) {
	x := newTestIndex(t)
	for _, q := range []string{"mcpx", "severs"} {
		if r := x.Search(q, 10); r.Total != 0 {
			t.Errorf("%q matched %d entries: %q", q, r.Total, names(r))
		}
	}
	// Nor is a word of a concept's term a misspelling: "linkedin" is not
	// "linked".
	y := indexOf(append(testEntries(), entry("linked-notes", "Linked notes in markdown", 0)))
	if r := y.Search("linkedin", 10); r.Total != 0 {
		t.Errorf("linkedin matched %d entries: %q", r.Total, names(r))
	}
	if r := x.Search("postgress", 10); rankOf(r, "@modelcontextprotocol/server-postgres") < 0 {
		t.Errorf("a misspelling of a word queries search for is still one: %q", names(r))
	}
}

// TestNoCompletionToAWordQueriesDrop checks that a word is not read as
// the beginning of one a query does not search for either: "serv" was
// "server", and matched 20,002 of the packages corpus's entries, each of
// whose postings it read.
func TestNoCompletionToAWordQueriesDrop(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("weather-server", "An MCP server for weather forecasts", 0),
		entry("model-serving", "Serving of machine learning models", 0),
	})
	if r := x.Search("serv", 10); !slices.Equal(names(r), []string{"model-serving"}) {
		t.Errorf("serv: %q", names(r))
	}
	if r := x.Search("serv weather", 10); rankOf(r, "weather-server") != 0 {
		t.Errorf("the query's other words still find theirs: %q", names(r))
	}
}

// TestPackageHostsAreNotWords checks that the host a package is served
// from ("github.com/…", "ghcr.io/…") is no word of its entry: every Go
// module's server used to match "github".
func TestPackageHostsAreNotWords(t *testing.T) {
	widget := entry("io.github.acme/widget-mcp", "Manage widgets", 0)
	widget.Packages = []mcpdir.Package{{RegistryType: "go", Identifier: "github.com/acme/widget-mcp"}}
	image := entry("io.github.acme/gadget-mcp", "Manage gadgets", 0)
	image.Packages = []mcpdir.Package{{RegistryType: "oci", Identifier: "ghcr.io/acme/gadget-mcp"}}
	x := indexOf(append(testEntries(), widget, image))
	if r := x.Search("github", 10); slices.ContainsFunc(names(r), func(n string) bool { return strings.Contains(n, "acme") }) {
		t.Errorf("github: %q", names(r))
	}
	if r := x.Search("ghcr", 10); r.Total != 0 {
		t.Errorf("ghcr: %q", names(r))
	}
	if r := x.Search("gadget", 10); rankOf(r, "io.github.acme/gadget-mcp") != 0 { // the rest of the identifier still counts
		t.Errorf("gadget: %q", names(r))
	}
}
