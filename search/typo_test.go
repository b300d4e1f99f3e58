package search

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
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
