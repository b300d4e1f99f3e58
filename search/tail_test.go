package search

import (
	"path/filepath"
	"strings"
	"testing"
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
