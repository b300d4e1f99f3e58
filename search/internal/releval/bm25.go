package releval

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpdir/mcpdir"
)

// BM25 is the plain baseline the ranking is compared with and judged sets
// are pooled from: Okapi BM25 (k1 1.2, b 0.75) over one bag of words made
// of an entry's name, brief and tool names, matching any query word. Words
// are folded to lower case without accents and split at anything that is
// not a letter or digit; English, German, French, Spanish, Portuguese and
// Italian stop words are left out; Chinese, Japanese and Korean runs are
// overlapping character pairs. No stemming, synonyms, typos or concepts.
type BM25 struct {
	urls     []string
	lens     []float32
	avgLen   float32
	postings map[string][]bm25Posting
}

type bm25Posting struct {
	doc uint32
	tf  float32
}

// NewBM25 indexes the entries.
func NewBM25(entries []*mcpdir.Entry) *BM25 {
	b := &BM25{postings: map[string][]bm25Posting{}}
	var total float64
	for _, e := range entries {
		d := uint32(len(b.urls))
		b.urls = append(b.urls, e.WebsiteURL)
		counts := map[string]int{}
		n := 0
		add := func(text string) {
			for _, w := range plainWords(text) {
				counts[w]++
				n++
			}
		}
		add(e.Name)
		add(e.Brief)
		for _, t := range e.Tools {
			add(t.Name)
		}
		for w, c := range counts {
			b.postings[w] = append(b.postings[w], bm25Posting{d, float32(c)})
		}
		b.lens = append(b.lens, float32(n))
		total += float64(n)
	}
	if len(b.urls) > 0 {
		b.avgLen = float32(total / float64(len(b.urls)))
	}
	return b
}

// Search ranks the entries matching any word of the query and returns the
// best k website URLs and the number of matches.
func (b *BM25) Search(query string, k int) ([]string, int) {
	const k1, bb = 1.2, 0.75
	scores := map[uint32]float32{}
	seen := map[string]bool{}
	n := float64(len(b.urls))
	for _, w := range plainWords(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		ps := b.postings[w]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := float32(math.Log(1 + (n-df+0.5)/(df+0.5)))
		for _, p := range ps {
			norm := 1 - bb + bb*b.lens[p.doc]/b.avgLen
			scores[p.doc] += idf * p.tf * (k1 + 1) / (p.tf + k1*norm)
		}
	}
	docs := make([]uint32, 0, len(scores))
	for d := range scores {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if scores[docs[i]] != scores[docs[j]] {
			return scores[docs[i]] > scores[docs[j]]
		}
		return docs[i] < docs[j]
	})
	ranked := make([]string, 0, min(k, len(docs)))
	for _, d := range docs[:min(k, len(docs))] {
		ranked = append(ranked, b.urls[d])
	}
	return ranked, len(docs)
}

// plainWords splits text as BM25 reads it.
func plainWords(text string) []string {
	var words []string
	var run []rune
	flush := func() {
		if len(run) == 0 {
			return
		}
		if isCJK(run[0]) {
			if len(run) == 1 {
				words = append(words, string(run))
			}
			for i := 0; i+1 < len(run); i++ {
				words = append(words, string(run[i:i+2]))
			}
		} else if w := string(run); !plainStop[w] {
			words = append(words, w)
		}
		run = run[:0]
	}
	for _, r := range norm.NFKD.String(text) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(run) > 0 && isCJK(run[0]) != isCJK(r) {
				flush()
			}
			run = append(run, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return words
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// plainStop are the stop words of the six languages, folded.
var plainStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about an and are as at be but by can do for from has have how i if in into is it
	its me my no not of on or our so that the their them then there these they this to us was we what when where which
	who why will with would you your
	der die das und ist ein eine einen mit fur von zu im den dem des auf aus bei nach oder wie ich mein meine
	le la les et un une des du de pour avec dans sur mon ma mes je que qui est au aux
	el los las y en con para por del al mi mis que es una unos
	o os as e em com para por do da dos das meu minha um uma que
	il lo gli e di da con per del della nel che mio mia un una`) {
		m[w] = true
	}
	return m
}()
