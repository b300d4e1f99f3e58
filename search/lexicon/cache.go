package lexicon

import (
	"strconv"

	"github.com/mcpdir/mcpdir/gencache"
)

// CacheSize bounds the query words whose analysis a cache keeps: 16,384
// (a few MB), since queries never asked before still share their words
// with earlier ones (issue 36: new keyword queries p50 128 → 57-73 µs at
// 4,096 → 65,536 words; BenchmarkSearchNew).
const CacheSize = 1 << 14

// Cache keeps the analysis of query words (stem, expansions, weights)
// across searches: the words of queries repeat, and finding a word's
// prefixes and typos costs far more than looking it up. Expansions and
// weights depend on the index's words and statistics, so the cache holds
// for one generation of the index.
type Cache = gencache.Cache[*analysis]

// NewCache returns a cache of the analyses of CacheSize query words.
func NewCache() *Cache { return gencache.New[*analysis](CacheSize, nil) }

// analysis is what a clause's words expand to, as addClause finds it.
type analysis struct {
	stem   string
	exps   []Expansion
	weight float32
	idf    float32
	known  bool
	df     uint32
	nameDF uint32
	asked  bool
	sensed bool
}

// appendClauseKey appends the cache key of word w of query word qw to b:
// its analysis depends on the phrases, concepts and gloss qw was found in,
// on whether the query is a sentence and in another language, and on
// whether the concept the query means qw in is borne out by nothing (no
// entry of it, and a word that names it with qw no entry has: see
// sensedHere), which the query's other words decide. The key is built in a
// reused buffer, so that a hit allocates nothing.
func appendClauseKey(b []byte, w string, qw *qword, sentence, foreign, unborne bool) []byte {
	if sentence || foreign || unborne {
		flags := byte(2)
		if foreign {
			flags |= 4
		}
		if sentence {
			flags |= 8
		}
		if unborne {
			flags |= 16
		}
		b = append(b, flags)
	}
	b = append(b, w...)
	if len(qw.shorts)+len(qw.concepts)+len(qw.gloss) == 0 {
		return b
	}
	for _, s := range qw.shorts {
		b = append(append(b, 0), s...)
	}
	b = append(b, 1)
	for _, k := range qw.concepts {
		b = strconv.AppendInt(append(append(b, 0), k.concept...), int64(k.words), 10)
		if k.phrase { // (weighs less: phraseConcept)
			b = append(b, 'p')
		}
	}
	b = append(b, 1)
	for _, g := range qw.gloss {
		b = append(append(b, 0), g...)
	}
	return b
}
