package search

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// TestATypoIsTheLikelierWord: of corrections as near, the more frequent is
// the word meant. "slak" is one edit from Slack, used by 40 entries, and
// from the start of ShakerScan, used by one whose name and brief say it
// over and over: Slack's servers come first.
func TestATypoIsTheLikelierWord(t *testing.T) {
	entries := []*mcpdir.Entry{
		entry("shakerscan", "ShakerScan client: the ShakerScan adapter for a ShakerScan instance", 0),
	}
	for i := range 40 {
		entries = append(entries, entry(fmt.Sprintf("slack-mcp-%d", i), "Read and post Slack messages", 0))
	}
	entries = append(entries, entry("weather-mcp", "Weather forecasts for any city", 50))
	r := indexOf(entries).Search("slak", 10)
	if len(r.Hits) == 0 || r.Hits[0].Entry.Name == "shakerscan" {
		t.Errorf("slak: %q, want a Slack server first", names(r))
	}
}

// TestTyposOverTheCorpus misspells 400 words of corpus entries' names (in
// the names of 5 entries or more, 5 to 12 letters) by one edit each (a
// letter dropped, changed, swapped with the next or added), and counts how
// often an entry whose name has the word comes first. typoFrequency was
// chosen on another sample (seed 1); on this one (seed 2) 355 came first
// before it and 361 with it.
func TestTyposOverTheCorpus(t *testing.T) {
	x := loadIndex(t)
	rng := rand.New(rand.NewSource(2))
	var words []string
	for i := range x.terms {
		w := x.terms[i].text
		if x.terms[i].nameDF >= 5 && len(w) >= 5 && len(w) <= 12 && !strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) {
			words = append(words, w)
		}
	}
	const letters = "abcdefghijklmnopqrstuvwxyz"
	typed, first := 0, 0
	for typed < 400 {
		w := words[rng.Intn(len(words))]
		i := 1 + rng.Intn(len(w)-2)
		var typo string
		switch rng.Intn(4) {
		case 0:
			typo = w[:i] + w[i+1:]
		case 1:
			typo = w[:i] + string(letters[rng.Intn(26)]) + w[i+1:]
		case 2:
			typo = w[:i] + string(w[i+1]) + string(w[i]) + w[i+2:]
		default:
			typo = w[:i] + string(letters[rng.Intn(26)]) + w[i:]
		}
		if _, known := x.termIDs[typo]; known {
			continue // a word of its own
		}
		typed++
		if r := x.Search(typo, 10); len(r.Hits) > 0 && strings.Contains(strings.ToLower(r.Hits[0].Entry.Name+" "+r.Hits[0].Entry.Title), w) {
			first++
		}
	}
	t.Logf("%d of %d typos answer an entry named with the word first", first, typed)
	if first < 358 {
		t.Errorf("%d of %d typos answer an entry named with the word first, want 358 or more", first, typed)
	}
}

// TestATypoInARequestIsCorrected misspells one word of five letters or
// more (a letter dropped, changed or swapped with the next) in each of the
// sampled asks' paraphrases and questions whose entry the engine ranks in
// the top 10 as written, and counts how many still rank it there. Without
// corrections in the query's reading (lexicon.Parser.correctSpelling) 967
// of 1,159 did on this sample (seed 2) and 956 on the one the rules were
// chosen on (seed 1); with them 1,114 and 1,104.
func TestATypoInARequestIsCorrected(t *testing.T) {
	x := loadIndex(t)
	asks, err := releval.ReadLines[struct{ Kind, Query, Target string }](filepath.Join("testdata", "sampled-asks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	inTop10 := func(q, target string) bool {
		i := slices.IndexFunc(x.Search(q, 10).Hits, func(h mcpdir.Hit) bool { return h.Entry.WebsiteURL == target })
		return i >= 0
	}
	asked, kept := 0, 0
	for _, a := range asks {
		if a.Kind != "paraphrase" && a.Kind != "question" {
			continue
		}
		q := strings.ToLower(a.Query)
		typo, ok := misspellOne(rng, q)
		if !ok || !inTop10(q, a.Target) {
			continue
		}
		asked++
		if inTop10(typo, a.Target) {
			kept++
		}
	}
	t.Logf("with a typo, %d of the %d asks answered in the top 10 as written still are", kept, asked)
	if kept < asked*93/100 {
		t.Errorf("with a typo, %d of %d asks kept their entry in the top 10, want 93%% or more", kept, asked)
	}
}

// misspellOne changes one word of q of five letters or more by an edit.
func misspellOne(rng *rand.Rand, q string) (string, bool) {
	words := strings.Fields(q)
	var long []int
	for i, w := range words {
		if len(w) >= 5 && !strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) {
			long = append(long, i)
		}
	}
	if len(long) == 0 {
		return "", false
	}
	k := long[rng.Intn(len(long))]
	w := []byte(words[k])
	i := 1 + rng.Intn(len(w)-2)
	switch rng.Intn(3) {
	case 0:
		w[i], w[i+1] = w[i+1], w[i]
	case 1:
		w = append(w[:i], w[i+1:]...)
	default:
		w[i] = byte('a' + rng.Intn(26))
	}
	words[k] = string(w)
	return strings.Join(words, " "), true
}

// TestAMistypedWordIsReadAsMeant: a request's mistyped word is read as the
// word meant, with its neighbours: "emial my boss" asks for mail as "email
// my boss" does (Shipboss's parcels had it), "flihgts to rome" has a place
// as "flights to rome" has (it answered nothing), and "umbrlela" asks for
// the weather.
func TestAMistypedWordIsReadAsMeant(t *testing.T) {
	x := loadIndex(t)
	for _, c := range []struct{ query, want string }{
		{"emial my boss", "email"},
		{"flihgts to rome", "flight"},
		{"do i need an umbrlela tomorrow", "weather"},
		{"EMIAL MY BOSS", "email"},            // capitals all through say nothing of names
		{"Send An Emial To My Boss", "email"}, // (capitalsTellNames)
	} {
		wantFirstSays(t, x, c.query, c.want)
	}
}

// TestChatSpellingsAreSmallTalk: a contraction without its apostrophe
// ("whats", "dont"), "teh", and chat's "smth" or "pls" say nothing of the
// need, as "what's" and "something" do not: "whats teh weather" answered
// WhatsApp's servers first, "need smth to read pdfs" MCPSmith.
func TestChatSpellingsAreSmallTalk(t *testing.T) {
	x := loadIndex(t)
	for _, c := range []struct{ query, want string }{
		{"whats teh weather", "weather"},
		{"need smth to read pdfs", "pdf"},
		{"i dont know how to read pdfs", "pdf"},
	} {
		wantFirstSays(t, x, c.query, c.want)
	}
}
