package lexicon

import (
	"strconv"
	"strings"

	"github.com/mcpdir/mcpdir/gencache"
)

// CacheSize bounds the query words whose analysis a cache keeps: 65,536,
// more than the 43,000 distinct words of the packages corpus, so that a
// stream of queries never asked before, whose words are the directory's
// own, finds their analyses after a first pass. An analysis costs about
// 145 bytes, so a full cache about 9.5 MB (issue 36: new queries p50 at
// 16,384 → 65,536 words 29-35 → 18-23 µs in process; BenchmarkSearchNew,
// whose words are drawn evenly from the briefs' 21,000, a harder stream
// than people's, where a few words recur most).
const CacheSize = 1 << 16

// Cache keeps the analysis of query words (stem, expansions, weights)
// across searches: the words of queries repeat, and finding a word's
// prefixes and typos costs far more than looking it up. Expansions and
// weights depend on the index's words and statistics, so the cache holds
// for one generation of the index.
type Cache struct {
	// words holds what is known of each word (wordInfo), which the parser
	// would otherwise look up in several large maps, a cache miss each.
	words *gencache.Cache[wordInfo]
	// clauses holds the analyses of words in the context of a query (by
	// appendClauseKey), those of words alone being in words.
	clauses *gencache.Cache[*analysis]
}

// NewCache returns a cache of CacheSize query words, and as many analyses
// of words in context.
func NewCache() *Cache {
	return &Cache{words: gencache.New[wordInfo](CacheSize, nil), clauses: gencache.New[*analysis](CacheSize, nil)}
}

// wordInfo is what the lexicon and the index say of a word.
type wordInfo struct {
	facts wordFacts // what the word lists say of it
	stem  string
	cues  *stemCues // the cues starting with stem
	id    uint32    // its index word, if known
	known bool
	place bool // the name of a place (isPlaceName)
	// placeHead: the first word of names of places of several words
	// (placePhrases: "new" of "new york")
	placeHead bool
	next      uint64 // Vocabulary.Next of the word
	// fix is the word's correction, if it is mistyped, once looked for
	// (fixed: see correctSpelling)
	fix   string
	fixed bool
	alone *analysis // its analysis as a clause of its own, once found (see addClause)
}

// info returns what the lexicon and the index say of w, from the cache
// when it has it: a parser looks each word up once, and keeps what it
// found with the word (qword).
func (p *Parser) info(w string) wordInfo {
	if p.cache != nil {
		if a, ok := p.cache.words.Get(p.gen, []byte(w)); ok {
			return a
		}
	}
	st := Stem(w)
	a := wordInfo{facts: factsOf(w), stem: st, cues: cuesByStem[st], place: isPlaceName(w), placeHead: placePhrases()[w] != nil}
	if p.v != nil {
		a.id, a.known = p.v.Term(w)
		a.next = p.v.Next(w)
	}
	a.fixed = a.known // a word the index has is no typo (correction)
	p.keepInfo(w, &a)
	return a
}

// keepInfo puts what is known of w in the cache.
func (p *Parser) keepInfo(w string, a *wordInfo) {
	if p.cache == nil {
		return
	}
	// The word may be a slice of a long query: keep only its bytes.
	w = strings.Clone(w)
	if len(a.stem) <= len(w) && w[:len(a.stem)] == a.stem {
		a.stem = w[:len(a.stem)]
	}
	p.cache.words.Put(p.gen, w, *a)
}

// stem is w's English stem (Stem).
func (p *Parser) stem(w string) string { return p.info(w).stem }

// analysis is what a clause's words expand to, as addClause finds it.
type analysis struct {
	stem    string
	exps    []Expansion
	weight  float32
	idf     float32
	known   bool
	df      uint32
	nameDF  uint32
	asked   bool
	sensed  bool
	common  bool // isCommon, which the key decides (the word and its shorts)
	english bool // isEnglish of the word
}

// appendClauseKey appends the cache key of word w of query word qw to b:
// its analysis depends on the phrases, concepts and gloss qw was found in,
// on whether the query is a sentence and in another language, and on
// whether the concept the query means qw in is borne out by nothing (no
// entry of it, and a word that names it with qw no entry has: see
// sensedHere), which the query's other words decide. The key is built in a
// reused buffer, so that a hit allocates nothing.
func appendClauseKey(b []byte, w string, qw *qword, sentence, foreign, unborne bool) []byte {
	if sentence || foreign || unborne || qw.wholeTerm || qw.termHere {
		flags := byte(2)
		if qw.wholeTerm {
			flags |= 64
		}
		if qw.termHere {
			flags |= 128
		}
		if sentence && qw.acronym {
			flags |= 32
		}
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
	if len(qw.meant) > 0 { // (the meant are among the shorts: see expand)
		b = append(b, 2)
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
