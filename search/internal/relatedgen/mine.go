package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir/search/lexicon"
)

// params are the knobs of mining; defaultParams are those the shipped
// table is made with.
type params struct {
	minDF         int     // a word must be in at least this many entries
	maxShare      float64 // and in at most this share of them to have neighbours
	maxShareNear  float64 // or to be one
	minContexts   int     // a word must co-occur with at least this many words
	minCooc       int     // entries two words must share to count as co-occurring
	alpha         float64 // context distribution smoothing of PPMI
	dims          int     // dimensions the SVD keeps
	candidates    int     // nearest words considered for each word
	sameCos       float64 // least cosine of a pair WordNet calls the same
	formCos       float64 // …and of one whose words share a root ("build", "builder")
	akinCos       float64 // least cosine of a pair WordNet relates otherwise
	corpusCos     float64 // least cosine of a pair WordNet does not relate
	corpusDF      int     // …whose words must each be in this many entries
	minNamed      float64 // …and in the names of this share of them
	mutualTop     int     // …which must also be among each other's nearest this many
	maxTogether   float64 // most share of the rarer word's entries a pair may share
	maxNeighbours int     // neighbours written for a word
}

var defaultParams = params{
	minDF:         5,
	maxShare:      0.05,
	maxShareNear:  0.03,
	minContexts:   5,
	corpusDF:      20,
	minNamed:      0.05,
	minCooc:       2,
	alpha:         0.75,
	dims:          100,
	candidates:    40,
	sameCos:       0.45,
	formCos:       0.30,
	akinCos:       0.55,
	corpusCos:     0.65,
	mutualTop:     10,
	maxTogether:   0.5,
	maxNeighbours: 5,
}

// hostWords name MCP clients, model vendors and models, package managers,
// runtimes and code hosts: briefs list them together ("for Claude, Cursor
// and Windsurf", "npx or uvx"), so the corpus finds them similar, but one
// is no stand-in for another.
var hostWords = setOf(`claude cursor windsurf cline vscode code copilot chatgpt gpt openai anthropic gemini
	llm llms ai assistant assistants desktop zed goose codex continue roo kiro trae opencode ide ides
	grok deepseek qwen mistral llama ollama sonnet opus haiku smithery npx npm pypi uvx uv pip node nodejs
	python typescript javascript js ts go rust java github gitlab`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// table is the mined result: a line for each word that has neighbours.
type table struct {
	lines []line
}

type line struct {
	word       string
	neighbours []neighbour
}

type neighbour struct {
	word   string
	weight float64
	source string // what vouches for the pair, for the summary
}

// summary counts the words and pairs, and the pairs by source.
func (t *table) summary() string {
	n := 0
	bySource := map[string]int{}
	for _, l := range t.lines {
		n += len(l.neighbours)
		for _, nb := range l.neighbours {
			bySource[nb.source]++
		}
	}
	s := fmt.Sprintf("%d words, %d pairs (", len(t.lines), n)
	for i, src := range sortedKeys(bySource) {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d", src, bySource[src])
	}
	return s + ")"
}

func (t *table) write(w io.Writer) {
	for _, l := range t.lines {
		fmt.Fprintf(w, "%s:", l.word)
		for i, n := range l.neighbours {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s %.2f", sep, n.word, n.weight)
		}
		fmt.Fprintln(w)
	}
}

// vocab is the corpus's words by stem.
type vocab struct {
	stems  []string       // by id, sorted
	ids    map[string]int // stem → id
	df     []int          // entries holding the stem
	nameDF []int          // entries holding it in their name
	form   []string       // most frequent word of the stem
}

// topical reports whether a word is in enough entries for its corpus
// similarity to be trusted alone, is no two-letter abbreviation, and names
// what servers are about often enough ("mysql", "smtp", "arxiv": not
// "enhanced" or "comprehensive").
func (v *vocab) topical(id int, p params) bool {
	return v.df[id] >= p.corpusDF && len(v.stems[id]) >= 3 && float64(v.nameDF[id]) >= p.minNamed*float64(v.df[id])
}

// vocabulary reads the corpus: its vocabulary (stems in at least minDF
// entries), and each entry's stems of it as ids, sorted.
func vocabulary(corpus []byte, minDF int) (*vocab, [][]int, error) {
	docs, forms, err := readCorpus(corpus, minDF)
	if err != nil {
		return nil, nil, err
	}
	v := buildVocab(docs, forms, minDF)
	ids := make([][]int, len(docs))
	for i, d := range docs {
		for _, s := range d.stems {
			if id, ok := v.ids[s]; ok {
				ids[i] = append(ids[i], id)
			}
		}
		slices.Sort(ids[i])
	}
	return v, ids, nil
}

// mine finds the related words of the corpus (JSON lines with name and
// brief), confirmed by WordNet.
func mine(corpus []byte, wn wordNet, p params) (*table, error) {
	v, ids, err := vocabulary(corpus, p.minDF)
	if err != nil {
		return nil, err
	}
	counts, rows := ppmi(ids, len(v.stems), p)
	word := make([]bool, len(v.stems))
	near := make([]bool, len(v.stems))
	for id, s := range v.stems {
		ok := len(s) >= 2 && len(rows[id]) >= p.minContexts && !hostWords[v.form[id]] && !hostWords[s]
		word[id] = ok && float64(v.df[id]) <= p.maxShare*float64(len(ids))
		near[id] = ok && float64(v.df[id]) <= p.maxShareNear*float64(len(ids))
	}
	nearby := nearest(embed(rows, p.dims), word, near, p.candidates)
	related := wn.stems(v)
	t := &table{}
	for a, cands := range nearby {
		var ns []neighbour
		for rank, c := range cands {
			if float64(counts[a][c.id]) >= p.maxTogether*float64(min(v.df[a], v.df[c.id])) {
				continue // one phrase or name ("blast radius"), not two ways to say a thing
			}
			kin := related[pairKey(a, c.id)]
			switch {
			case kin == same && (c.cos >= p.sameCos || c.cos >= p.formCos && sameRoot(v.stems[a], v.stems[c.id])):
				ns = append(ns, neighbour{v.form[c.id], math.Sqrt(c.cos), "WordNet same"})
			case kin == akin && c.cos >= p.akinCos:
				ns = append(ns, neighbour{v.form[c.id], c.cos, "WordNet related"})
			case rank < p.mutualTop && c.cos >= p.corpusCos && v.topical(a, p) && v.topical(c.id, p) &&
				among(nearby[c.id][:min(p.mutualTop, len(nearby[c.id]))], a):
				ns = append(ns, neighbour{v.form[c.id], c.cos * c.cos, "corpus only"})
			}
		}
		if len(ns) == 0 {
			continue
		}
		for i := range ns {
			ns[i].weight = math.Round(ns[i].weight*100) / 100
		}
		slices.SortStableFunc(ns, func(x, y neighbour) int {
			if x.weight != y.weight {
				if x.weight > y.weight {
					return -1
				}
				return 1
			}
			return strings.Compare(x.word, y.word)
		})
		t.lines = append(t.lines, line{v.form[a], ns[:min(len(ns), p.maxNeighbours)]})
	}
	slices.SortFunc(t.lines, func(x, y line) int { return strings.Compare(x.word, y.word) })
	return t, nil
}

// sameRoot reports whether two stems begin alike (three letters), as words derived from
// one another mostly do ("connect", "connector"; "pay", "payment").
func sameRoot(a, b string) bool {
	const root = 3
	return len(a) >= root && len(b) >= root && a[:root] == b[:root]
}

func among(cs []candidate, id int) bool {
	for _, c := range cs {
		if c.id == id {
			return true
		}
	}
	return false
}

// doc is an entry's distinct stems, and whether each is in its name.
type doc struct {
	stems []string
	named map[string]bool
}

// minBriefWords is how many words a brief needs to tell a package apart.
const minBriefWords = 3

// maxPerScope is how many packages of one npm scope count: a publisher's
// family of packages ("@codingame/monaco-vscode-…-common", 31 of them)
// would otherwise teach the vectors its own vocabulary.
const maxPerScope = 5

// readCorpus returns the distinct stems of each entry (entries that repeat
// an earlier entry's brief, or its words when the brief says little, count
// once: forks, re-publications, builds for each platform), and how
// many entries use each word, by stem. A compound that the corpus uses
// whole in at least minDF entries ("pdfs", "linkedin", "firecrawl") stands
// for itself; any other is read as its parts ("WeatherServer" → "weather"),
// so that names do not cut words out of words ("pd" and "fs" of "PDFs").
func readCorpus(corpus []byte, minDF int) ([]doc, map[string]map[string]int, error) {
	type token struct {
		word, stem string
		part, name bool
	}
	var entries [][]token
	wholeDF := map[string]int{}
	scopes := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(corpus))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec struct{ Name, Brief string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, nil, fmt.Errorf("corpus line %d: %w", n, err)
		}
		if scope, _, ok := strings.Cut(rec.Name, "/"); ok && strings.HasPrefix(scope, "@") {
			if scopes[scope]++; scopes[scope] > maxPerScope {
				continue
			}
		}
		var ts []token
		wholes := map[string]bool{}
		for i, text := range []string{unscoped(rec.Name), rec.Brief} {
			lexicon.ContentWords(text, func(w, s string, part bool) {
				ts = append(ts, token{w, s, part, i == 0})
				if !part {
					wholes[w] = true
				}
			})
		}
		for w := range wholes {
			wholeDF[w]++
		}
		entries = append(entries, ts)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	var docs []doc
	seen := map[string]bool{}
	forms := map[string]map[string]int{}
	for _, ts := range entries {
		stems := map[string]bool{} // → in the name
		briefStems := map[string]bool{}
		words := map[string]string{}
		for i := 0; i < len(ts); {
			// A whole and the parts that follow it.
			j := i + 1
			for j < len(ts) && ts[j].part {
				j++
			}
			var group []token
			if j > i+1 && wholeDF[ts[i].word] < minDF {
				group = ts[i+1 : j]
			} else {
				group = ts[i : i+1]
			}
			for _, t := range group {
				if plain(t.word) {
					stems[t.stem] = stems[t.stem] || t.name
					if !t.name {
						briefStems[t.stem] = true
					}
					words[t.word] = t.stem
				}
			}
			i = j
		}
		d := doc{stems: sortedKeys(stems), named: stems}
		key := strings.Join(d.stems, " ")
		if len(briefStems) >= minBriefWords {
			// The builds of one package for each platform, and packages
			// published under several names, share a brief.
			key = strings.Join(sortedKeys(briefStems), " ")
		}
		if len(d.stems) == 0 || seen[key] {
			continue
		}
		seen[key] = true
		docs = append(docs, d)
		for w, s := range words {
			if forms[s] == nil {
				forms[s] = map[string]int{}
			}
			forms[s][w]++
		}
	}
	return docs, forms, nil
}

// unscoped drops an npm scope ("@acme/weather-mcp" → "weather-mcp"): it names
// the publisher, not what the package does.
func unscoped(name string) string {
	if strings.HasPrefix(name, "@") {
		if _, rest, ok := strings.Cut(name, "/"); ok {
			return rest
		}
	}
	return name
}

// plain reports whether w is a word worth relating: ASCII letters and
// digits, at least one letter, not too long.
func plain(w string) bool {
	letter := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter && len(w) <= 24
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// buildVocab keeps the stems in at least minDF entries, each with its most
// frequent word (ties: the shorter, then the first in order).
func buildVocab(docs []doc, forms map[string]map[string]int, minDF int) *vocab {
	df, nameDF := map[string]int{}, map[string]int{}
	for _, d := range docs {
		for _, s := range d.stems {
			df[s]++
			if d.named[s] {
				nameDF[s]++
			}
		}
	}
	v := &vocab{ids: map[string]int{}}
	for _, s := range sortedKeys(df) {
		if df[s] < minDF {
			continue
		}
		best, bestN := "", -1
		for _, w := range sortedKeys(forms[s]) {
			if n := forms[s][w]; n > bestN || n == bestN && len(w) < len(best) {
				best, bestN = w, n
			}
		}
		v.ids[s] = len(v.stems)
		v.stems = append(v.stems, s)
		v.df = append(v.df, df[s])
		v.nameDF = append(v.nameDF, nameDF[s])
		v.form = append(v.form, best)
	}
	return v
}

// cell is one non-zero value of a sparse row.
type cell struct {
	id int
	v  float64
}

// ppmi returns how many entries each two words share, and each word's row of positive PMI with the words it shares
// entries with, normalised to unit length. Context counts are smoothed
// (raised to alpha), which keeps rare contexts from dominating.
func ppmi(docs [][]int, n int, p params) ([]map[int]int, [][]cell) {
	counts := make([]map[int]int, n)
	for i := range counts {
		counts[i] = map[int]int{}
	}
	for _, d := range docs {
		for i, a := range d {
			for _, b := range d[i+1:] {
				counts[a][b]++
				counts[b][a]++
			}
		}
	}
	rowSum := make([]float64, n)
	total, smoothTotal := 0.0, 0.0
	for a := range n {
		for _, c := range counts[a] {
			rowSum[a] += float64(c)
		}
		total += rowSum[a]
		smoothTotal += math.Pow(rowSum[a], p.alpha)
	}
	rows := make([][]cell, n)
	for a := range n {
		for _, b := range sortedInts(counts[a]) {
			c := counts[a][b]
			if c < p.minCooc {
				continue
			}
			pab := float64(c) / total
			pa := rowSum[a] / total
			pb := math.Pow(rowSum[b], p.alpha) / smoothTotal
			if v := math.Log(pab / (pa * pb)); v > 0 {
				rows[a] = append(rows[a], cell{b, v})
			}
		}
	}
	return counts, rows
}

// nearest returns, for each word marked in word, its k words marked in near
// of highest cosine (ties by id).
func nearest(vecs [][]float64, word, near []bool, k int) [][]candidate {
	nearby := make([][]candidate, len(vecs))
	for a := range vecs {
		if !word[a] {
			continue
		}
		var cs []candidate
		for b := range vecs {
			if b == a || !near[b] {
				continue
			}
			dot := 0.0
			for d, x := range vecs[a] {
				dot += x * vecs[b][d]
			}
			if dot > 0 {
				cs = append(cs, candidate{b, dot})
			}
		}
		sortCandidates(cs)
		nearby[a] = cs[:min(len(cs), k)]
	}
	return nearby
}

func sortCandidates(cs []candidate) {
	slices.SortFunc(cs, func(x, y candidate) int {
		if x.cos != y.cos {
			if x.cos > y.cos {
				return -1
			}
			return 1
		}
		return x.id - y.id
	})
}

func sortedInts(m map[int]int) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

type candidate struct {
	id  int
	cos float64
}

// pairKey is an unordered pair of ids.
func pairKey(a, b int) [2]int {
	if a > b {
		a, b = b, a
	}
	return [2]int{a, b}
}

// stems maps WordNet's relations onto the vocabulary's stems.
func (wn wordNet) stems(v *vocab) map[[2]int]kinship {
	rel := map[[2]int]kinship{}
	for x, ys := range wn {
		a, ok := v.ids[stemOf(x)]
		if !ok {
			continue
		}
		for y, k := range ys {
			if b, ok := v.ids[stemOf(y)]; ok && a != b {
				rel[pairKey(a, b)] = max(rel[pairKey(a, b)], k)
			}
		}
	}
	return rel
}

// stemOf is the engine's stem of a WordNet lemma.
func stemOf(w string) string {
	st := w
	lexicon.ContentWords(w, func(_, s string, _ bool) { st = s })
	return st
}
