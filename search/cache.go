package search

import (
	"strconv"

	"github.com/mcpdir/mcpdir/gencache"
)

// clauseCacheSize bounds the query words whose analysis is kept.
const clauseCacheSize = 4096

// clauseCache keeps the analysis of query words (stem, expansions, weights)
// across searches: the words of queries repeat, and finding a word's
// prefixes and typos costs far more than looking it up. Expansions and
// weights depend on the index's words and statistics, so the cache holds
// for one generation of the index.
type clauseCache = gencache.Cache[*analyzedClause]

// analyzedClause is what a clause's words expand to, as addClause finds it.
type analyzedClause struct {
	stem   string
	exps   []expansion
	weight float32
	idf    float32
	known  bool
	asked  bool
	sure   bool
}

// appendClauseKey appends the cache key of word w of query word qw to b:
// its analysis depends on the phrases, concepts and gloss qw was found in,
// and on whether the query is a sentence. The key is built in a reused
// buffer, so that a hit allocates nothing.
func appendClauseKey(b []byte, w string, qw *qword, sentence bool) []byte {
	if sentence {
		b = append(b, 2)
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
	}
	b = append(b, 1)
	for _, g := range qw.gloss {
		b = append(append(b, 0), g...)
	}
	return b
}

// Generation counts the index's changes: what a caller keeps of a search
// (its facet counts, say) holds while the generation stays the same.
func (x *Index) Generation() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.gen
}
