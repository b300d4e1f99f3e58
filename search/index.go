// Package search is the directory's in-memory ranked search index: BM25F
// over the fields of an entry, with stemming, prefix, typo and synonym
// matching, a popularity prior and near-duplicate collapsing.
//
// Layout, chosen for millions of entries: entries get dense ordinals; every
// distinct word ("term") has one postings list of the ordinals that contain
// it, delta- and varint-coded, each followed by which fields hold the word
// and how often. Ordinals only grow, so postings are appended to; a replaced
// or removed entry leaves a dead ordinal behind until enough of them pile up
// to renumber.
//
// Where things are: index.go holds the index and its upkeep (upsert,
// remove, renumbering); analyze.go turns an entry into the words of its
// fields and its concepts; postings.go codes the postings lists;
// dictionary.go keeps the words sorted for the prefix walk and fuzzy.go's
// typo walk; vocabulary.go is the index as the query parser (search/lexicon)
// reads it; search.go scores a query over the postings and best.go picks and
// orders the best hits; params.go holds the fitted weights and the priors;
// facets.go the filters and facet counts; results.go and unpacked.go the
// caches; ids.go finds an entry by its id.
package search

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/gencache"
	"github.com/mcpdir/mcpdir/packed"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// The fields of an entry that are searched, strongest first.
const (
	fieldName = iota
	fieldTitle
	fieldTags
	fieldPackage
	fieldTool
	fieldBrief
	fieldDescription
	numFields
)

// maxTF caps a word's count in one field, which BM25 saturates long before.
const maxTF = 255

// doc is what the index keeps of one entry besides its postings and
// its packed form.
type doc struct {
	sig uint64 // simhash of the brief, to spot near-duplicates
	// placeholder: the brief and description say nothing (see Params).
	placeholder bool
	// stemOff is where the name's stem starts: after an npm scope and a
	// republisher's prefix, so that forks of one server share it.
	stemOff uint16
	// nameNext (the name's bytes 5 to 8, big-endian) breaks score ties
	// the tie key leaves (hit.tie holds the first 4) without reading the
	// pack: ties are common, most entries being of popularity 0, many
	// named "mcp-" something.
	nameNext uint32
}

// lenCode packs a field's length in words into a byte: exact up to 127,
// then in steps of 32 up to 4191 (BM25 needs lengths only roughly).
func lenCode(n int) uint8 {
	if n < 128 {
		return uint8(n)
	}
	return uint8(min(255, 128+(n-128)/32))
}

func lenDecode(c uint8) int {
	if c < 128 {
		return int(c)
	}
	return 128 + int(c-128)*32
}

// term is one distinct word of the index.
type term struct {
	text     string
	postings []byte
	last     uint32 // last ordinal appended, the base of the next delta
	df       uint32 // live entries containing the term
	nameDF   uint32 // live entries whose name or title contains the term
	// sameStem links the terms that share a stem in a ring.
	sameStem uint32
}

// Index is the in-memory ranked search index. It implements
// mcpdir.SearchIndex and is safe for concurrent use. Entries given to it
// must not be modified afterwards (removing one re-reads it).
type Index struct {
	mu   sync.RWMutex
	docs []doc
	// packs are the entries, by ordinal, packed (the zero value once
	// removed or replaced): a 100x directory's entries take a third of
	// what they take decoded. unpacked keeps those of recent hits.
	packs    []packed.Entry
	unpacked unpackedCache
	// ranks holds each ordinal's facet values, prior, language and tie
	// key, and exact its name's exactKey, kept dense apart from docs: a
	// search reads them for many candidates (the rank facts for every
	// match, the exact key for every match of a name typed).
	ranks []rankFacts
	exact []uint32
	// maxPrior is at least every live entry's prior (it is not lowered
	// when one is removed): ranking leaves out the entries that could not
	// beat the bar with it.
	maxPrior float32
	// live has a bit per ordinal, set while its entry is indexed: a scan
	// checks it for every posting, so it is kept dense.
	liveBits  []uint64
	ids       idTable
	live      int // entries indexed
	dead      int // ordinals of replaced or removed entries still in postings
	terms     []term
	termIDs   map[string]uint32
	stemHeads map[string]uint32 // stem → a term of its ring
	dict      dictionary
	// postingBytes counts the bytes ever appended to postings, clippedAt
	// its value at the last clipPostings.
	postingBytes, clippedAt int
	lenSum                  [numFields]int64 // decoded lengths of live entries, by field
	// gen counts the index's changes: what is cached of its words and
	// statistics holds for one generation.
	gen uint64
	// noCollapse leaves near-duplicates where they rank (SetCollapse).
	noCollapse bool
	// ownFields are the fields of an entry's own words (SetBorrowed): a
	// search tells which hits matched the query in them.
	ownFields uint8
	// params are the ranking's weights; paramsGen counts their changes.
	params    Params
	paramsGen int64
	clauses   *lexicon.Cache
	results   *gencache.Cache[mcpdir.SearchResult]
	// facetIDs interns the registries and tags entries have, for filters
	// and facet counts; facetNames is the other way.
	facetIDs   map[string]uint32
	facetNames []string
	// facetSets are the distinct sets of values entries have (set 0 the
	// empty one), facetSetIDs the other way, by the set's bytes.
	facetSets    [][]uint32
	facetSetIDs  map[string]uint32
	facetScratch []uint32
	facetKey     []byte
	searchers    searcherPool
}

var _ mcpdir.SearchIndex = (*Index)(nil)

// New returns an empty index.
func New() *Index {
	return &Index{
		termIDs:     make(map[string]uint32),
		stemHeads:   make(map[string]uint32),
		facetIDs:    make(map[string]uint32),
		facetSetIDs: make(map[string]uint32),
		clauses:     lexicon.NewCache(),
		results:     newResultCache(DefaultResultCache),
		params:      DefaultParams(),
	}
}

// Len returns the number of indexed entries.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Generation counts the index's changes: what a caller keeps of a search
// (its facet counts, say) holds while the generation stays the same.
func (x *Index) Generation() uint64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.gen
}

// Get returns an indexed entry by ID.
func (x *Index) Get(id string) (*mcpdir.Entry, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	d, ok := x.ids.get(id, x.packs)
	if !ok {
		return nil, false
	}
	// Kept unpacked only if a hit: lookups (a detail, a registry list's
	// page) do not push out the entries of searches.
	return x.unpacked.peek(&x.packs[d], d), true
}

// chunkSize is how many entries one write lock covers: a big upsert is
// applied chunk by chunk so that searches run in between.
const chunkSize = 1024

// Upsert adds or replaces entries, matched by ID; entries without an ID are
// ignored. It is also the bulk path: the text of many entries is analysed
// in parallel, outside the lock.
func (x *Index) Upsert(entries ...*mcpdir.Entry) {
	x.upsert(len(entries), func(a *analyzer, out []analyzed, lo, hi int) []analyzed {
		for _, e := range entries[lo:hi] {
			if e != nil && e.ID != "" {
				out = append(out, analyzed{})
				a.analyze(&out[len(out)-1], e, packed.Pack(e))
			}
		}
		return out
	})
}

// UpsertPacked is Upsert of packed entries, which the index keeps as they
// are: a caller that keeps them too (merge.Index, a lone record's) shares
// their memory.
func (x *Index) UpsertPacked(ps ...packed.Entry) {
	x.upsert(len(ps), func(a *analyzer, out []analyzed, lo, hi int) []analyzed {
		for _, p := range ps[lo:hi] {
			if p.Valid() && p.ID() != "" {
				out = append(out, analyzed{})
				a.analyze(&out[len(out)-1], p.Unpack(), p)
			}
		}
		return out
	})
}

// upsert indexes n entries, which analyzeAll analyses by range.
func (x *Index) upsert(n int, analyzeAll func(a *analyzer, out []analyzed, lo, hi int) []analyzed) {
	bulk := n >= clipAfter
	workers := runtime.GOMAXPROCS(0)
	batch := make([][]analyzed, workers)
	// One analyzer a worker for the whole upsert: what it has stemmed is
	// kept from chunk to chunk (stemming was a seventh of building).
	analyzers := make([]analyzer, workers)
	for done := 0; done < n; {
		m := min(n-done, chunkSize*workers)
		if m <= chunkSize {
			batch = [][]analyzed{analyzeAll(&analyzers[0], nil, done, done+m)}
		} else {
			var wg sync.WaitGroup
			for w := range workers {
				lo, hi := done+min(w*chunkSize, m), done+min((w+1)*chunkSize, m)
				wg.Add(1)
				go func() {
					defer wg.Done()
					batch[w] = analyzeAll(&analyzers[w], batch[w][:0], lo, hi)
				}()
			}
			wg.Wait()
		}
		done += m
		for _, as := range batch {
			x.mu.Lock()
			for i := range as {
				x.add(&as[i])
			}
			x.dict.flush(x.terms, done < n)
			x.gen++
			x.mu.Unlock()
		}
	}
	x.mu.Lock()
	x.dict.flush(x.terms, false)
	if bulk && x.postingBytes >= x.clippedAt+x.clippedAt/2 {
		x.clipPostings()
	}
	x.unpacked.grow(len(x.docs))
	x.gen++
	x.mu.Unlock()
}

// clipAfter is the size of an upsert after which the postings lists are
// clipped to their lengths, once they have grown by half since they last
// were: a directory indexed in batches copies its common words' lists a
// few times, not once a batch.
const clipAfter = 4096

// clipPostings gives back what appending left spare at the end of the
// postings lists (a third of their bytes after a bulk load); under the
// write lock. Later appends grow a list again as they would.
func (x *Index) clipPostings() {
	x.clippedAt = x.postingBytes
	for i := range x.terms {
		x.terms[i].postings = clipped(x.terms[i].postings)
	}
	// And the arrays by ordinal, which grow as the postings do.
	x.docs, x.packs, x.ranks = clipped(x.docs), clipped(x.packs), clipped(x.ranks)
	x.exact, x.terms = clipped(x.exact), clipped(x.terms)
}

// clipped is s in an array of its length when appending left much spare.
func clipped[T any](s []T) []T {
	if cap(s)-len(s) > len(s)/8 {
		return slices.Clone(s)
	}
	return s
}

// Remove drops entries by ID; unknown IDs are ignored.
func (x *Index) Remove(ids ...string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.gen++
	var a analyzer
	for _, id := range ids {
		if slot, d, ok := x.ids.lookup(id, x.packs); ok {
			x.ids.removeAt(slot, x.packs)
			x.drop(&a, d)
		}
	}
	x.compactIfWorthIt()
}

// add indexes one analysed entry under the write lock, replacing the entry
// with the same ID.
func (x *Index) add(a *analyzed) {
	slot, old, replaces := x.ids.lookup(a.pack.ID(), x.packs)
	if replaces {
		var re analyzer
		x.drop(&re, old)
	}
	d := uint32(len(x.docs))
	x.docs = append(x.docs, a.doc)
	x.packs = append(x.packs, a.pack)
	x.exact = append(x.exact, a.exact)
	prior := x.prior(&a.doc, a.entry)
	x.ranks = append(x.ranks, rankFacts{tie: a.tie, prior: prior, facets: x.internFacets(a.entry), lang: a.lang})
	x.maxPrior = max(x.maxPrior, prior)
	if int(d)/64 >= len(x.liveBits) {
		x.liveBits = append(x.liveBits, 0)
	}
	x.liveBits[d/64] |= 1 << (d % 64)
	if replaces {
		x.ids.slots[slot] = d + 1
	} else {
		x.ids.add(d, x.packs)
	}
	x.live++
	for f, c := range a.lens {
		x.lenSum[f] += int64(lenDecode(c))
	}
	for i := range a.terms {
		ft := &a.terms[i]
		id := x.termID(ft.text)
		t := &x.terms[id]
		n := len(t.postings)
		t.postings = appendPosting(t.postings, d-t.last, &ft.tf, &a.lens)
		x.postingBytes += len(t.postings) - n
		t.last = d
		t.df++
		x.dict.raised(id, t.df)
		if ft.named() {
			t.nameDF++
		}
	}
	x.compactIfWorthIt()
}

// drop marks ordinal d dead, taking its words out of the statistics.
func (x *Index) drop(a *analyzer, d uint32) {
	var out analyzed
	a.analyze(&out, x.packs[d].Unpack(), x.packs[d])
	for _, ft := range out.terms {
		if id, ok := x.termIDs[ft.text]; ok && x.terms[id].df > 0 {
			t := &x.terms[id]
			t.df--
			if ft.named() && t.nameDF > 0 {
				t.nameDF--
			}
		}
	}
	for f, c := range out.lens {
		x.lenSum[f] -= int64(lenDecode(c))
	}
	x.docs[d] = doc{}
	x.packs[d] = packed.Entry{}
	x.ranks[d] = rankFacts{tie: x.ranks[d].tie, lang: x.ranks[d].lang}
	x.liveBits[d/64] &^= 1 << (d % 64)
	x.live--
	x.dead++
}

// termID returns the id of a word, adding it to the dictionary if new.
func (x *Index) termID(text string) uint32 {
	if id, ok := x.termIDs[text]; ok {
		return id
	}
	// Not the entry's memory, which the index does not keep.
	text = strings.Clone(text)
	id := uint32(len(x.terms))
	x.terms = append(x.terms, term{text: text, sameStem: id})
	x.termIDs[text] = id
	s := lexicon.Stem(text)
	if head, ok := x.stemHeads[s]; ok {
		x.terms[id].sameStem = x.terms[head].sameStem
		x.terms[head].sameStem = id
	} else {
		x.stemHeads[s] = id
	}
	if !lexicon.IsPair(text) && !lexicon.IsConcept(text) {
		x.dict.pending = append(x.dict.pending, id)
	}
	return id
}

// compactIfWorthIt renumbers the live entries once dead ordinals make up a
// third of all: the cost is linear in the index, so it is paid rarely.
func (x *Index) compactIfWorthIt() {
	if x.dead < 4096 || x.dead < len(x.docs)/3 {
		return
	}
	renum := make([]uint32, len(x.docs))
	n := uint32(0)
	for i := range x.docs {
		if !x.packs[i].Valid() {
			continue
		}
		renum[i] = n + 1
		x.docs[n] = x.docs[i]
		x.packs[n] = x.packs[i]
		x.ranks[n] = x.ranks[i]
		x.exact[n] = x.exact[i]
		n++
	}
	clear(x.docs[n:])
	clear(x.packs[n:])
	x.docs = x.docs[:n]
	x.packs = x.packs[:n]
	x.unpacked.reset(len(x.docs))
	x.ids.reset(len(x.docs), x.packs)
	x.ranks = x.ranks[:n]
	x.exact = x.exact[:n]
	x.liveBits = make([]uint64, (n+63)/64)
	for d := range n {
		x.liveBits[d/64] |= 1 << (d % 64)
	}
	for i := range x.terms {
		t := &x.terms[i]
		var out []byte
		last := uint32(0)
		p := postings{b: t.postings}
		for p.next() {
			if nd := renum[p.doc]; nd != 0 {
				out = appendPosting(out, nd-1-last, &p.tf, &p.lens)
				last = nd - 1
			}
		}
		t.postings, t.last = out, last
	}
	x.dead = 0
}

// Build returns an index of every entry in the store.
func Build(ctx context.Context, store mcpdir.EntryStore) (*Index, error) {
	var all []*mcpdir.Entry
	if err := store.AllEntries(ctx, func(e *mcpdir.Entry) error { all = append(all, e); return nil }); err != nil {
		return nil, fmt.Errorf("build index: %w", err)
	}
	x := New()
	x.Upsert(all...)
	return x, nil
}

// Entries calls yield with every indexed entry, in no order, under the read
// lock: yield must not call the index. Each is unpacked for the walk into
// one struct, its packages and extra members into memory reused too (a
// recent hit's excepted): a caller keeps what it needs of it, not it or
// those (issue 36: a 100x walk made 1.6 GB of garbage of the structs
// alone, and 560 MB of their packages and extra members, which near a
// container's memory limit the collector works through for minutes).
func (x *Index) Entries(yield func(*mcpdir.Entry)) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var walk mcpdir.Entry
	var reused packed.Reused
	for d := range x.packs {
		p := &x.packs[d]
		if !p.Valid() {
			continue
		}
		if e := x.unpacked.cached(uint32(d)); e != nil {
			yield(e)
			continue
		}
		p.UnpackReusing(&walk, &reused)
		yield(&walk)
	}
}
