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
package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
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
	// priors is each ordinal's prior, langs its entry's language, facets
	// its facet values and ties its tieKey, kept dense apart from docs: a
	// search reads them for many candidates (facets for every match when
	// counted, the tie key for every hit that passes the bar).
	priors []float32
	langs  []lexicon.Lang
	facets []facetIDs
	ties   []uint64
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
	searchers    sync.Pool
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
	for done := 0; done < n; {
		m := min(n-done, chunkSize*workers)
		if m <= chunkSize {
			var a analyzer
			batch = [][]analyzed{analyzeAll(&a, nil, done, done+m)}
		} else {
			var wg sync.WaitGroup
			for w := range workers {
				lo, hi := done+min(w*chunkSize, m), done+min((w+1)*chunkSize, m)
				wg.Add(1)
				go func() {
					defer wg.Done()
					var a analyzer
					batch[w] = analyzeAll(&a, batch[w][:0], lo, hi)
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
	x.docs, x.packs, x.priors, x.langs = clipped(x.docs), clipped(x.packs), clipped(x.priors), clipped(x.langs)
	x.facets, x.ties, x.terms = clipped(x.facets), clipped(x.ties), clipped(x.terms)
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
	x.facets = append(x.facets, x.internFacets(a.entry))
	x.ties = append(x.ties, a.tie)
	prior := x.prior(&a.doc, a.entry)
	x.priors = append(x.priors, prior)
	x.maxPrior = max(x.maxPrior, prior)
	x.langs = append(x.langs, a.lang)
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
	x.priors[d] = 0
	x.facets[d] = facetIDs{}
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
		x.priors[n] = x.priors[i]
		x.langs[n] = x.langs[i]
		x.facets[n] = x.facets[i]
		x.ties[n] = x.ties[i]
		n++
	}
	clear(x.docs[n:])
	clear(x.packs[n:])
	x.docs = x.docs[:n]
	x.packs = x.packs[:n]
	x.unpacked.reset(len(x.docs))
	x.ids.reset(len(x.docs), x.packs)
	x.priors = x.priors[:n]
	x.langs = x.langs[:n]
	x.facets = x.facets[:n]
	x.ties = x.ties[:n]
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

// appendPosting appends one entry to a postings list: the ordinal's delta;
// a byte with one bit per field holding the word, and the top bit set when
// a count is above one; then for each of those fields its count (if any is
// above one) and the lenCode of the field's length. Keeping lengths in the
// postings, rather than per entry, makes a scan read memory in order.
func appendPosting(b []byte, delta uint32, tf, lens *[numFields]uint8) []byte {
	b = binary.AppendUvarint(b, uint64(delta))
	var mask byte
	for f, n := range tf {
		if n > 0 {
			mask |= 1 << f
		}
		if n > 1 {
			mask |= 0x80
		}
	}
	b = append(b, mask)
	for f, n := range tf {
		if n > 0 {
			if mask&0x80 != 0 {
				b = append(b, n)
			}
			b = append(b, lens[f])
		}
	}
	return b
}

// postings reads a postings list.
type postings struct {
	b    []byte
	i    int
	doc  uint32
	tf   [numFields]uint8
	lens [numFields]uint8
}

func (p *postings) next() bool {
	if p.i >= len(p.b) {
		return false
	}
	delta, n := binary.Uvarint(p.b[p.i:])
	p.i += n
	p.doc += uint32(delta)
	mask := p.b[p.i]
	p.i++
	for f := range p.tf {
		p.tf[f], p.lens[f] = 0, 0
		if mask&(1<<f) != 0 {
			p.tf[f] = 1
			if mask&0x80 != 0 {
				p.tf[f] = p.b[p.i]
				p.i++
			}
			p.lens[f] = p.b[p.i]
			p.i++
		}
	}
	return true
}

// dictionary keeps the words of the index sorted, for prefix and typo
// lookups. New words wait in pending (searched linearly) and are merged in
// batches, so that a bulk load does not re-sort on every entry.
type dictionary struct {
	words   []string
	heads   []uint64 // head of each word, so that walks mostly skip the words
	ids     []uint32
	pending []uint32
	// pos is each merged word's place in words, by term id (noPos for a
	// pending one); dfs bounds each place's df, and blockMax the df of
	// the words of each block of dfBlock places (both rise with a word's
	// df, and are made exact again at a merge), so that a typo walk skips
	// the branches whose words are all too rare to be of use
	// (fuzzyWalk.run).
	pos      []uint32
	dfs      []uint32
	blockMax []uint32
}

// dfBlock is how many sorted words share a bound of their df.
const dfBlock = 32

const noPos = math.MaxUint32

// raised notes that term id's df rose to df.
func (d *dictionary) raised(id, df uint32) {
	if int(id) < len(d.pos) {
		if p := d.pos[id]; p != noPos && df > d.dfs[p] {
			d.dfs[p] = df
			d.blockMax[p/dfBlock] = max(d.blockMax[p/dfBlock], df)
		}
	}
}

// anyOver reports whether a word of the sorted words [lo, hi) may be in
// more than over entries: false means that none is.
func (d *dictionary) anyOver(lo, hi int, over uint32) bool {
	for lo < hi && lo%dfBlock != 0 {
		if d.dfs[lo] > over {
			return true
		}
		lo++
	}
	for ; lo+dfBlock <= hi; lo += dfBlock {
		if d.blockMax[lo/dfBlock] > over {
			return true
		}
	}
	for ; lo < hi; lo++ {
		if d.dfs[lo] > over {
			return true
		}
	}
	return false
}

// flush merges pending words in; while more are coming (lazy) it waits
// until they are numerous enough to be worth a merge.
func (d *dictionary) flush(terms []term, lazy bool) {
	if len(d.pending) == 0 || lazy && len(d.pending) < max(4096, len(d.words)/8) {
		return
	}
	sort.Slice(d.pending, func(i, j int) bool { return terms[d.pending[i]].text < terms[d.pending[j]].text })
	words := make([]string, 0, len(d.words)+len(d.pending))
	ids := make([]uint32, 0, cap(words))
	i, j := 0, 0
	for i < len(d.words) || j < len(d.pending) {
		if j == len(d.pending) || i < len(d.words) && d.words[i] < terms[d.pending[j]].text {
			words, ids = append(words, d.words[i]), append(ids, d.ids[i])
			i++
		} else {
			id := d.pending[j]
			words, ids = append(words, terms[id].text), append(ids, id)
			j++
		}
	}
	heads := make([]uint64, len(words))
	for i, w := range words {
		heads[i] = head(w)
	}
	d.words, d.heads, d.ids, d.pending = words, heads, ids, d.pending[:0]
	d.pos = slices.Grow(d.pos[:0], len(terms))[:len(terms)]
	for i := range d.pos {
		d.pos[i] = noPos
	}
	d.dfs = slices.Grow(d.dfs[:0], len(ids))[:len(ids)]
	d.blockMax = slices.Grow(d.blockMax[:0], (len(ids)+dfBlock-1)/dfBlock)[:(len(ids)+dfBlock-1)/dfBlock]
	clear(d.blockMax)
	for i, id := range ids {
		d.pos[id], d.dfs[i] = uint32(i), terms[id].df
		d.blockMax[i/dfBlock] = max(d.blockMax[i/dfBlock], terms[id].df)
	}
}

// republishers are prefixes that mirror accounts put before other people's
// package names when they republish them.
var republishers = []string{"iflow-mcp-", "mseep-", "mcpbind-"}

// analyzed is one entry's words and statistics, ready to be indexed.
type analyzed struct {
	entry *mcpdir.Entry
	pack  packed.Entry
	lang  lexicon.Lang
	doc   doc
	tie   uint64           // tieKey
	lens  [numFields]uint8 // lenCode of each field's length
	words [numFields]int   // each field's length in words
	terms []fieldTerm
}

// fieldTerm is one word of an entry and its count in each field.
type fieldTerm struct {
	text string
	tf   [numFields]uint8
}

// named reports whether the word is in the entry's name or title.
func (ft *fieldTerm) named() bool { return ft.tf[fieldName] > 0 || ft.tf[fieldTitle] > 0 }

// analyzer turns entries into words; it reuses its buffers.
type analyzer struct {
	pos    map[string]int // word → index in terms
	reader lexicon.Reader
}

// analyze analyses e, which p packs.
func (a *analyzer) analyze(out *analyzed, e *mcpdir.Entry, p packed.Entry) {
	if a.pos == nil {
		a.pos = make(map[string]int)
	}
	clear(a.pos)
	a.reader.Begin(e.Title, e.Brief)
	out.lang = a.reader.Lang
	out.entry, out.pack = e, p
	out.terms = out.terms[:0]
	out.doc = doc{nameNext: uint32(head(e.Name))}
	out.tie = tieKey(e.Popularity, e.Name)
	out.words = [numFields]int{}
	publisher, name := splitNamespace(e.Name)
	a.field(out, fieldName, name)
	a.field(out, fieldPackage, publisher)
	// The names the server has in the records merged into the entry (its
	// npm package's, an import's) name it too.
	for _, al := range e.Aliases {
		if _, n := splitNamespace(al.Name); !strings.EqualFold(n, name) {
			a.field(out, fieldName, n)
		}
	}
	a.field(out, fieldTitle, e.Title)
	for _, t := range e.Tags {
		a.field(out, fieldTags, t)
	}
	for _, t := range e.Categories {
		a.field(out, fieldTags, t)
	}
	for _, p := range e.Packages {
		// A package named like the entry adds nothing the name does not say.
		if !strings.EqualFold(p.Identifier, e.Name) {
			a.field(out, fieldPackage, withoutHost(p.Identifier))
		}
	}
	// A server is found by what its tools do: their names, and their words
	// below the brief.
	for _, t := range e.OfferedTools() {
		a.field(out, fieldTool, t.Name)
		a.field(out, fieldDescription, t.Title)
		a.field(out, fieldDescription, t.Description)
	}
	a.field(out, fieldBrief, e.Brief)
	a.field(out, fieldDescription, e.Description)
	a.reader.Concepts(func(c string) { a.addTerm(out, fieldTags, c) })

	out.doc.placeholder = !lexicon.Informative(e.Brief) && !lexicon.Informative(e.Description)
	off := nameStemOffset(e.Name)
	for f, n := range out.words {
		out.lens[f] = lenCode(n)
	}
	out.doc.stemOff = uint16(off)
	out.doc.sig = simhash(e.Brief)
}

// field adds the words of one field's text.
func (a *analyzer) field(out *analyzed, f int, text string) {
	cues := f != fieldDescription && f != fieldTool && f != fieldPackage
	out.words[f] += a.reader.Field(text, cues, func(w string) { a.addTerm(out, f, w) })
}

// addTerm counts word w once more in field f.
func (a *analyzer) addTerm(out *analyzed, f int, w string) {
	i, ok := a.pos[w]
	if !ok {
		i = len(out.terms)
		a.pos[w] = i
		out.terms = append(out.terms, fieldTerm{text: w})
	}
	if tf := &out.terms[i].tf[f]; *tf < maxTF {
		*tf++
	}
}

// splitNamespace splits an official-registry name ("io.github.owner/server",
// "com.cloudflare/docs") into its publisher and the server's own name. The
// reverse-DNS namespace names who publishes, not what the server does: its
// top-level domain and a code host ("io.github") would otherwise make every
// such entry match "github". Other names come back whole.
func splitNamespace(name string) (publisher, rest string) {
	ns, rest, ok := strings.Cut(name, "/")
	if !ok || strings.HasPrefix(name, "@") || !strings.Contains(ns, ".") || strings.ContainsAny(ns, " @:") {
		return "", name
	}
	_, publisher, _ = strings.Cut(ns, ".") // the top-level domain
	for _, host := range []string{"github.", "gitlab.", "bitbucket.", "codeberg."} {
		if len(publisher) > len(host) && strings.EqualFold(publisher[:len(host)], host) {
			publisher = publisher[len(host):]
		}
	}
	return publisher, rest
}

// withoutHost is a package identifier without the host it is served from
// ("github.com/grafana/mcp-grafana", "ghcr.io/sooperset/mcp-atlassian"):
// the host says where the package is kept, not what the server is for, and
// would have every Go module match "github".
func withoutHost(id string) string {
	host, rest, ok := strings.Cut(id, "/")
	if !ok || !strings.Contains(host, ".") || strings.ContainsAny(host, "@: ") {
		return id
	}
	return rest
}

// nameStemOffset is where the part of a name that forks share begins: after
// an npm scope ("@xxx/") or a registry namespace ("io.github.xxx/"), and
// after a republisher's prefix.
func nameStemOffset(name string) int {
	off := 0
	if publisher, _ := splitNamespace(name); strings.HasPrefix(name, "@") || publisher != "" {
		if i := strings.IndexByte(name, '/'); i > 0 {
			off = i + 1
		}
	}
	for _, p := range republishers {
		if len(name)-off > len(p) && strings.EqualFold(name[off:off+len(p)], p) {
			return off + len(p)
		}
	}
	return min(off, math.MaxUint16)
}

// simhash sums the hashed words of a text into 64 bits such that texts
// sharing most words differ in few bits.
func simhash(text string) uint64 {
	var v [64]int16
	lexicon.Tokenize(text, func(w string, part bool) {
		if part || lexicon.IsStop(w) {
			return
		}
		x := uint64(14695981039346656037) // FNV-1a
		for i := 0; i < len(w); i++ {
			x = (x ^ uint64(w[i])) * 1099511628211
		}
		for i := range v {
			if x&(1<<i) != 0 {
				v[i]++
			} else {
				v[i]--
			}
		}
	})
	var s uint64
	for i, c := range v {
		if c > 0 {
			s |= 1 << i
		}
	}
	return s
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
