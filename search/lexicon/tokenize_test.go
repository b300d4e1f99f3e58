package lexicon

import (
	"slices"
	"testing"

	"github.com/kljensen/snowball/english"
)

func words(s string) (whole, all []string) {
	Tokenize(s, func(w string, part bool) {
		if !part {
			whole = append(whole, w)
		}
		all = append(all, w)
	})
	return whole, all
}

func TestTokenizePackageNames(t *testing.T) {
	for _, name := range []string{
		"@scope/mcp-server-postgres", "mcp_server_postgres", "PostgresMCP", "postgres.mcp",
		"postgresmcp", "mcp-postgres", "POSTGRES",
	} {
		if _, all := words(name); !slices.Contains(all, "postgres") {
			t.Errorf("%q → %q, want postgres among them", name, all)
		}
	}
}

func TestTokenizeCompounds(t *testing.T) {
	tests := []struct {
		in        string
		whole     []string
		want, not []string
	}{
		{in: "GitHub", whole: []string{"github"}, want: []string{"git", "hub"}},
		{in: "HTTPServer", whole: []string{"httpserver"}, want: []string{"http", "server"}},
		{in: "getUserById", whole: []string{"getuserbyid"}, want: []string{"get", "user", "by", "id"}},
		{in: "pdf2md", whole: []string{"pdf2md"}, want: []string{"pdf", "md", "pdf>md"}},
		{in: "mcpdoc todoistmcp", whole: []string{"mcpdoc", "todoistmcp"}, want: []string{"doc", "todoist"}},
		{in: "k8s s3 mp3 web3", whole: []string{"k8s", "s3", "mp3", "web3"}, not: []string{"k", "s", "mp", "web"}},
		{in: "Café Zürich", whole: []string{"cafe", "zurich"}},
		// A script's vowel signs (Mc) are of their word: "मौसम" (weather) is
		// one word, not "म" and "सम"; Cyrillic and Greek are words as Latin is.
		{in: "मौसम ভাষা Погода καιρός", whole: []string{"मौसम", "ভাষা", "погода", "καιρος"}},
		{in: "Text-to-Speech, v2.0!", whole: []string{"text", "to", "speech", "v2", "0"}},
		// A thousands comma joins a number's groups: "2,000" is no "000".
		{in: "AUD 2,000, 1,000,000 rows, 3,14 and 1,5000", whole: []string{"aud", "2", "1", "rows", "3", "14", "and", "1", "5000"}},
		{in: "将Mermaid图表转换", whole: []string{"将", "mermaid", "图表", "表转", "转换"}},
		{in: "株価を調べる 한국어 검색", whole: []string{"株価", "価を", "を調", "調べ", "べる", "한국", "국어", "검색"}},
		// Two stop words hyphenated are a word: "to-do" is no "to" and "do".
		{in: "my To-Do list, to-dos, how-to", whole: []string{"my", "todo", "list", "todos", "howto"}},
		// The prolonged sound mark is of the word: "データ", not "デ" and "ー".
		{in: "決算データ ｻｰﾊﾞｰ", whole: []string{"決算", "算デ", "デー", "ータ", "ｻｰ", "ｰﾊ", "ﾊﾞ", "ﾞｰ"}, not: []string{"ー", "ｰ"}},
	}
	for _, tt := range tests {
		whole, all := words(tt.in)
		if !slices.Equal(whole, tt.whole) {
			t.Errorf("%q: words %q, want %q", tt.in, whole, tt.whole)
		}
		for _, w := range tt.want {
			if !slices.Contains(all, w) {
				t.Errorf("%q: %q lacks part %q", tt.in, all, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(all, w) {
				t.Errorf("%q: %q has part %q", tt.in, all, w)
			}
		}
	}
}

func TestStem(t *testing.T) {
	for _, pair := range [][2]string{
		{"databases", "database"}, {"forecasts", "forecasting"}, {"diagrams", "diagram"},
		{"payments", "payment"}, {"coding", "code"}, {"kubernets", "kubernetes"},
		{"accountant", "accounting"}, {"conversions", "conversion"}, {"presentations", "presentation"},
		{"executives", "executive"}, {"executes", "execution"},
		{"customer", "customers"}, {"filing", "filings"}, {"bookings", "booking"}, {"engineers", "engineering"},
	} {
		if a, b := Stem(pair[0]), Stem(pair[1]); a != b {
			t.Errorf("stem(%q) = %q, stem(%q) = %q, want equal", pair[0], a, pair[1], b)
		}
	}
	// Words the stemmer would join that mean different things.
	for _, pair := range [][2]string{
		{"accounting", "account"}, {"marketing", "market"}, {"securities", "security"},
		{"conversion", "conversation"}, {"terminal", "termination"}, {"internal", "international"},
		{"authorization", "author"}, {"experiment", "experience"}, {"executive", "execute"},
		{"customers", "custom"}, {"filings", "files"}, {"filed", "file"}, {"government", "governance"},
		{"integrity", "integration"}, {"booking", "book"}, {"ios", "io"}, {"reservation", "reserved"},
		{"unifi", "unified"}, {"screening", "screen"}, {"specification", "specific"},
		{"engineering", "engine"}, {"dynamics", "dynamic"}, {"adaptive", "adapter"}, {"listings", "list"},
	} {
		if a, b := Stem(pair[0]), Stem(pair[1]); a == b {
			t.Errorf("stem(%q) = stem(%q) = %q, want them apart", pair[0], pair[1], a)
		}
	}
	if got := Stem("k8s"); got != "k8s" {
		t.Errorf("stem(k8s) = %q, want it unchanged", got)
	}
}

func TestInformative(t *testing.T) {
	for brief, want := range map[string]bool{
		"":                                 false,
		"Add your description here":        false,
		"A Model Context Protocol server":  false,
		"A MCP server project":             false,
		"MCP server for PostgreSQL":        true,
		"Todoist MCP Server":               true,
		"An MCP server for the Slack API.": true,
	} {
		if got := Informative(brief); got != want {
			t.Errorf("informative(%q) = %v, want %v", brief, got, want)
		}
	}
}

// What is left of a contraction once its apostrophe splits it ("we're",
// "don't", "they've") is no word to search for: "re" is not a word of
// entries' "re-rank", nor "don" Don.
func TestContractionsLeaveNoWords(t *testing.T) {
	var content []string
	Tokenize("we're about to ship and I don't want to wait: the build isn't ready and they've said we'll see", func(w string, part bool) {
		if !part && !stopWords[w] {
			content = append(content, w)
		}
	})
	if want := []string{"ship", "want", "wait", "build", "ready", "said", "see"}; !slices.Equal(content, want) {
		t.Errorf("words %q, want %q", content, want)
	}
}

func TestIsAmount(t *testing.T) {
	for w, want := range map[string]bool{
		"800k": true, "2m": true, "1.5bn": true, "10b": true,
		"800": false, "k8s": false, "mp4": false, "5km": false, "bn": false, "2mb": false, "k": false,
	} {
		if got := isAmount(w); got != want {
			t.Errorf("isAmount(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestStemAsBefore holds Stem, on the Snowball project's generated English
// stemmer, to the stems kljensen/snowball's gave (the index's words and
// the shipped tables were made with those) over every word of english.txt:
// a word that stemmed otherwise would find other words than it did.
func TestStemAsBefore(t *testing.T) {
	n := 0
	for r := range records(englishText) {
		for _, w := range r.items {
			if _, own := ownStems[w]; own || !isLetters(w) {
				continue
			}
			n++
			if got, want := Stem(w), english.Stem(w, false); got != want {
				t.Errorf("Stem(%q) = %q, want %q", w, got, want)
			}
		}
	}
	if n < 50_000 {
		t.Fatalf("only %d words compared", n)
	}
}

func isLetters(w string) bool {
	for i := range len(w) {
		if !isASCIILetter(w[i]) {
			return false
		}
	}
	return w != ""
}
