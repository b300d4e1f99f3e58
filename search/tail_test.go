package search

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// TestSentenceFloorIsTheAnswerDecision checks that the coverage a match
// of a sentence needs (lexicon.Parser.LeastCoverage) is the answer
// decision's own threshold: About holds for a coverage exactly where it
// is at least that much, so that an entry answers a sentence in the tail
// where it would answer it alone. Over the sentences of nl.jsonl,
// on the starter directory.
func TestSentenceFloorIsTheAnswerDecision(t *testing.T) {
	x := starterIndex(t)
	qs := readQueries(t, filepath.Join("testdata", "nl.jsonl"))
	sentences := 0
	for _, q := range qs {
		s := x.searcher()
		if !s.parse(x, q.Query) || !s.parser.Sentence {
			continue
		}
		sentences++
		least := s.parser.LeastCoverage()
		for c := float32(0); c <= 1; c += 1.0 / 64 {
			if about, above := s.parser.About(c), c >= least; about != above {
				t.Errorf("%q: About(%.3f) = %v, but the least coverage is %.3f", q.Query, c, about, least)
				break
			}
		}
	}
	if sentences < 100 {
		t.Fatalf("only %d sentences", sentences)
	}
}

// TestSentenceTailStops checks, on the packages corpus, that entries
// sharing one word with a request do not answer it where they cover less
// than the answer decision needs: a song for a daughter's birthday is
// answered by song makers, not by the children's servers that match
// "daughter" alone (they used to fill the whole first page).
func TestSentenceTailStops(t *testing.T) {
	x := loadIndex(t)
	res := x.Search("make a silly little song for my daughter's 6th birthday", 10)
	if len(res.Hits) < 3 {
		t.Fatalf("%d hits: %v", len(res.Hits), names(res))
	}
	for _, h := range res.Hits[:3] {
		if text := strings.ToLower(h.Entry.Name + " " + h.Entry.Brief); !strings.Contains(text, "music") && !strings.Contains(text, "song") {
			t.Errorf("%s (%q) answers a request for a song", h.Entry.Name, h.Entry.Brief)
		}
	}
}

// TestWordOfAnAskedTermInItsSense checks that a word of a term people ask
// with ("voice memo") is read in the term's sense where the query names
// that concept with other words ("voice ... into text") and the word's own
// sense ("memo" of Word documents) has no other word of the query with it.
// "turn my voice memo into text" answered the Memos note-taking servers
// on the packages corpus, and the starter's SQLite and Snowflake servers,
// which keep "a memo of insights".
func TestWordOfAnAskedTermInItsSense(t *testing.T) {
	const query = "turn my voice memo into text"
	res := starterIndex(t).Search(query, 10)
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Entry.Name, "elevenlabs") {
		t.Errorf("starter: %v, want ElevenLabs first", names(res))
	}
	for _, h := range res.Hits {
		if strings.Contains(h.Entry.Name, "sqlite") || strings.Contains(h.Entry.Name, "snowflake") {
			t.Errorf("starter: %q answers %s", query, h.Entry.Name)
		}
	}
	x := loadIndex(t)
	res = x.Search(query, 10)
	if len(res.Hits) < 5 {
		t.Fatalf("corpus: %d hits: %v", len(res.Hits), names(res))
	}
	for _, h := range res.Hits[:5] {
		if text := strings.ToLower(h.Entry.Name + " " + h.Entry.Brief); !strings.Contains(text, "transcri") && !strings.Contains(text, "speech") {
			t.Errorf("corpus: %s (%q) answers a request to transcribe", h.Entry.Name, h.Entry.Brief)
		}
	}
}

// TestAnswerIndependentOfLimit: a page of 10 is the first 10 of a page of
// 50, and both tell the same total and facets. On the packages corpus,
// 155 of 20,000 new queries answered fewer hits at 10 (a fork moved out
// of the leading hits gave its place to a hit past the floor, which then
// cut it), and 1,382 told another total (the floor was decided on the
// page, not on what the search answers).
func TestAnswerIndependentOfLimit(t *testing.T) {
	x := loadIndex(t)
	for _, q := range newQueries(t, 4000) {
		ten := x.Find(mcpdir.Query{Text: q.Query, Limit: 10, Facets: true})
		fifty := x.Find(mcpdir.Query{Text: q.Query, Limit: 50, Facets: true})
		first := fifty.Hits[:min(10, len(fifty.Hits))]
		if !slices.Equal(hitIDs(ten.Hits), hitIDs(first)) || ten.Total != fifty.Total || !reflect.DeepEqual(ten.Facets, fifty.Facets) {
			t.Errorf("%q: at 10, %d of %d %v (%v); at 50, %d of %d, first %v (%v)", q.Query,
				len(ten.Hits), ten.Total, names(mcpdir.SearchResult{Hits: ten.Hits}), ten.Facets,
				len(fifty.Hits), fifty.Total, names(mcpdir.SearchResult{Hits: first}), fifty.Facets)
		}
	}
}

// TestTailOfOtherSensesStops checks, on the starter directory, that where
// the best entry matches a word of the query itself, an entry that
// matches only through neighbours of its words or its words in another
// sense does not answer: "what time is it in tokyo" used to answer seven
// servers that keep times of other kinds (ClickUp's time tracking,
// Tinybird's time series, Telegram) after the Time server, and "generate
// an image" Docker's container images.
func TestTailOfOtherSensesStops(t *testing.T) {
	x := starterIndex(t)
	for _, tc := range []struct{ query, want, not string }{
		{query: "what time is it in tokyo", want: "server-time", not: "clickup|tinybird|telegram|mapbox|calendar"},
		{query: "generate an image", want: "everart", not: "docker|chart|diagram"},
		{query: "read files on my computer", want: "desktopcommander", not: "mapbox|qdrant|hyperbrowser"},
		{query: "send a text message", want: "twilio", not: "discord|gmail"},
		// A browser's page: not Confluence's pages, AWS's documentation
		// pages nor Notion's ("navigate to a page" names browser automation).
		{query: "navigate to a page", want: "chrome-devtools", not: "atlassian|documentation|notion|pdf"},
		// A database to ask in plain words, not a chat app.
		{query: "chat with my database", want: "", not: "telegram|glean|workspace"},
		// A password manager, not the databases whose configuration has one.
		{query: "manage my passwords", want: "bitwarden", not: "redis|snowflake|airflow|mysql|mariadb"},
		// Logs analysed, not Postgres's query analysis nor Task Master's.
		{query: "analyze logs", want: "", not: "postgres|task-master|buildkite"},
		// A chatbot built with an agent framework, not a CI build.
		{query: "build a chatbot", want: "mastra", not: "buildkite|circleci|docker"},
		// A phrase glossed word for word: "перевести текст" is "translate
		// text", not two words that each look for "text" too.
		{query: "перевести текст", want: "lara", not: "elevenlabs|pdf-reader|fetch|discord|playwright"},
		// "интернете" is the internet ("search the internet"), not nothing.
		{query: "поиск в интернете", want: "brave", not: "pinecone|terraform"},
		// "two" is how many, not the Time server's two time zones.
		{query: "merge two pdfs", want: "pdf", not: "server-time|maps"},
		// A disk's free space, not Hugging Face's or Contentful's spaces.
		{query: "check disk space", want: "desktopcommander", not: "huggingface|hfspace|contentful|digitalocean"},
		// A user's password, not git's reset nor a database's password.
		{query: "reset a password", want: "auth0", not: "server-git|prisma|cognee|mariadb"},
		// Code explained, not CDK's rule explanations nor query plans.
		{query: "explain this code", want: "tree-sitter|claude-context|serena", not: "cdk|postgres"},
		// A pipeline of retrieval, not of CI.
		{query: "rag pipeline", want: "kb-retrieval", not: "circleci|buildkite|gitlab|azure-devops"},
		// Files organised, not Sentry's organisations.
		{query: "organize my files", want: "server-filesystem", not: "sentry"},
		// Performance profiled, not a LINE or Slack user's profile.
		{query: "profile performance", want: "chrome-devtools", not: "line-bot|slack|postgres"},
	} {
		res := x.Search(tc.query, 10)
		checkFirstAndNot(t, tc.query, res, tc.want, tc.not)
		if res.Total != len(res.Hits) && len(res.Hits) < 10 {
			t.Errorf("%q: total %d, but %d answer", tc.query, res.Total, len(res.Hits))
		}
	}
}

// TestAWordOfATermMeansTheTerm checks, on the starter directory (which
// has no IP lookup server), that a word of an entry term no entry is of
// means the term, not what it means alone: "address" of "ip address" is
// no street address, which it asks for alone.
func TestAWordOfATermMeansTheTerm(t *testing.T) {
	x := starterIndex(t)
	if res := x.Search("look up an ip address", 10); res.Total != 0 {
		t.Errorf("look up an ip address: %v, want nothing", names(res))
	}
	// … while an address alone is still a place.
	res := x.Search("look up an address on a map", 10)
	if !slices.ContainsFunc(res.Hits, func(h mcpdir.Hit) bool { return strings.Contains(h.Entry.Name, "maps") }) {
		t.Errorf("look up an address on a map: %v, want Google Maps among them", names(res))
	}
}

// TestKeywordsNoEntryHasInTheirSense checks, on the starter directory
// (which has no video editor and no sleep tracker), that keywords no entry
// has in the query's sense answer nothing: "edit a video" is not answered
// by the servers that edit slides with images, nor by the YouTube
// transcript servers ("subtitles" of a video fetched are no video
// editing); and a word no entry has asks for its concept beside the
// others ("sleep" of "track my sleep" is a wearable's data, not ClickUp's
// time tracking), while "cite" finds the citation manager, and "dropbox"
// a cloud drive. On the packages
// corpus the video editors still answer.
func TestKeywordsNoEntryHasInTheirSense(t *testing.T) {
	x := starterIndex(t)
	// (Nor is "look for a job" a CI job: the starter has no job board.)
	for _, q := range []string{"edit a video", "cut a video", "track my sleep", "look for a job"} {
		if res := x.Search(q, 10); res.Total != 0 {
			t.Errorf("%s: %v, want nothing", q, names(res))
		}
	}
	if res := x.Search("cite sources", 10); len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Entry.Name, "zotero") {
		t.Errorf("cite sources: %v, want Zotero first", names(res))
	}
	// A product no entry has, named in keywords, stands for its concept
	// alone: "upload to dropbox" is a cloud drive's upload (the starter has
	// Google Drive's), not Contentful's upload_asset.
	if res := x.Search("upload to dropbox", 10); len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Entry.Name, "gdrive") {
		t.Errorf("upload to dropbox: %v, want Google Drive first", names(res))
	}
	res := loadIndex(t).Search("edit a video", 10)
	if len(res.Hits) < 5 {
		t.Fatalf("corpus: %d hits: %v", len(res.Hits), names(res))
	}
	for _, h := range res.Hits[:5] {
		if text := strings.ToLower(h.Entry.Name + " " + h.Entry.Brief); !strings.Contains(text, "video") {
			t.Errorf("corpus: %s (%q) answers edit a video", h.Entry.Name, h.Entry.Brief)
		}
	}
}

// A thing done that no entry says, alone a term of a concept, asks for
// that concept: in a starter without an archive tool, "unzip a file" is
// answered by the servers of files, not by every entry that says "file"
// (50, before). A product's name stays itself (see
// TestKeywordsNoEntryHasInTheirSense).
func TestAThingNoEntrySaysAsksForItsConcept(t *testing.T) {
	x := starterIndex(t)
	for _, q := range []string{"unzip a file", "unzip files"} {
		res := x.Search(q, 10)
		if len(res.Hits) == 0 || !strings.HasSuffix(res.Hits[0].Entry.Name, "/server-filesystem") || res.Total > 10 {
			t.Errorf("%s: %d: %v, want Filesystem first of at most 10", q, res.Total, names(res))
		}
	}
	// Where an entry says the word in another form, the word is its own.
	archive := &mcpdir.Entry{Name: "io.example/archive-tool", Brief: "Lets an agent extract archives: unzipping zip and tar files."}
	archive.ID = mcpdir.EntryID(archive.NaturalKey())
	res := indexOf(append(starterEntries(t), archive)).Search("unzip a file", 10)
	if len(res.Hits) == 0 || res.Hits[0].Entry.Name != archive.Name {
		t.Errorf("with an archive tool, unzip a file: %v, want it first", names(res))
	}
}

// TestPlaceFindsItsAdjective checks that a place a query names finds the
// entries that say its adjective, and an adjective those that name its
// place (english.txt's place adjectives, from WordNet): entries say
// "French tax", people "income tax in France".
func TestPlaceFindsItsAdjective(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("french-tax-mcp", "MCP server for French tax calculations and information", 10),
		entry("lk-tax-mcp", "Exact, sourced Sri Lankan tax calculations for AI assistants", 10),
		entry("india-tax-mcp", "Indian income tax calculators and GST rates", 10),
		entry("japan-rail", "Japanese train timetables and fares", 10),
		entry("ns-trains", "Train departures and delays of NS in the Netherlands", 10),
		entry("sbb-trains", "Train departures and delays of SBB in Switzerland", 1000),
		entry("uk-courts", "Search UK court judgments and tribunal decisions", 10),
		entry("us-courts", "Search court judgments and opinions of US federal courts", 1000),
		entry("no-register", "Company register of Norway: look up companies", 10),
		entry("dk-register", "Company register of Denmark: look up companies", 1000),
	})
	wantFirst(t, x, []struct{ query, first string }{
		// "British" is the UK's: WordNet's pertainym is "Great Britain", a
		// name of two words the generated table leaves out (words.txt).
		{"where can I search British court judgments", "uk-courts"},
		{"court judgments in britain", "uk-courts"},
		// Norway is a member of unions, part of none (englishgen's places)
		{"look up norwegian companies", "no-register"},
		{"I live in France and need help working out my income tax", "french-tax-mcp"},
		{"tax france", "french-tax-mcp"},
		{"train times in japan", "japan-rail"},
		{"dutch train delays", "ns-trains"},
	})
}

// TestPhraseWithAWordThatSaysNothingNamesItsThing checks that a phrase
// spelt with a word that says nothing alone names its short form's thing:
// "SQL Server" is Microsoft SQL Server (words.txt: mssql), and the servers
// that only run SQL on other databases are weak evidence of it, though
// "server", dropped from the query, left "sql" alone to say it.
func TestPhraseWithAWordThatSaysNothingNamesItsThing(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("mssql-mcp", "Query the tables of Microsoft SQL Server databases", 10),
		entry("pg-sql-mcp", "Run SQL on PostgreSQL and MySQL databases, list their tables", 1000),
		entry("sqlite-mcp", "SQL over SQLite database files", 100),
	})
	wantFirst(t, x, []struct{ query, first string }{
		{"sql server database tables", "mssql-mcp"},
		{"let the assistant read the tables of our SQL Server database", "mssql-mcp"},
		{"sql on postgresql", "pg-sql-mcp"},
	})
	// On the starter, the servers that speak to SQL Server (or have a tool
	// that does), not every SQL database's.
	res := starterIndex(t).Search("sql server", 10)
	if len(res.Hits) == 0 {
		t.Fatal("starter: sql server answers nothing")
	}
	for _, h := range res.Hits {
		if text, _ := json.Marshal(h.Entry); !strings.Contains(string(text), "SQL Server") {
			t.Errorf("starter: sql server answers %s (%q)", h.Entry.Name, h.Entry.Brief)
		}
	}
}

// TestAnAcronymInASentenceIsAName checks that a rare word a sentence types
// in capitals weighs as a name does: most rare words of a sentence only
// describe ("produce", "priority"), but "BnF" names the library whose
// servers are wanted. Typed in lower case it is one of those words.
func TestAnAcronymInASentenceIsAName(t *testing.T) {
	x := indexOf([]*mcpdir.Entry{
		entry("gallica-mcp", "Gallica, the digital library of the BnF", 10),
		entry("news-reader", "Read today's newspapers and headlines", 1000),
		entry("pdf-reader", "Read PDF files", 100),
		entry("mail-reader", "Read your email", 100),
	})
	wantFirst(t, x, []struct{ query, first string }{
		{"where can I read old newspapers from the BnF", "gallica-mcp"},
		{"where can I read old newspapers from the bnf", "news-reader"},
	})
}
