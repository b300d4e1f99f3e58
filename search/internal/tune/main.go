// Command tune fits the ranking's weights (search.Params) to the tune half
// of the judged sets, and prints them, with the figures of both halves,
// for search.DefaultParams:
//
//	go run ./search/internal/tune [-passes 3]
//
// Two fits, alternated: the weights of the decision whether the directory
// is about a query at all (a logistic regression over lexicon.Evidence, on
// the tune half of search/testdata/about.jsonl, the tune half of the
// natural-language set, the keyword sets and every out-of-domain query the
// tests hold), and the ranking's weights (a coordinate ascent: each weight
// in turn tried at a few multiples of its value, kept where the objective
// rises), maximising the mean nDCG@10 of the tune half of
// search/testdata/nl.jsonl plus that of the keyword sets (the shared
// dev.jsonl and search/testdata/extra-judgments.jsonl, which must stay
// strong). The check halves are never read by the fit; their figures are
// printed for comparison.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/search/internal/releval"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

func main() {
	passes := flag.Int("passes", 3, "coordinate ascent passes")
	from := flag.String("from", "hand", "start from the weights set by hand before any fit (hand), or from search.DefaultParams (fitted)")
	testdata := flag.String("testdata", "search/testdata", "the judged sets of the project")
	freshWeight := flag.Float64("fresh", 0, "how much the fresh set (search/testdata/fresh.jsonl, a tuning set since issue 34) counts beside the tune half")
	flag.Parse()
	dir, entries, err := releval.Corpus()
	if err != nil {
		log.Fatal(err)
	}
	read := releval.MustReadQueries
	nl := read(filepath.Join(*testdata, "nl.jsonl"))
	keywords := append(read(filepath.Join(dir, "relevance", "dev.jsonl")), read(filepath.Join(*testdata, "extra-judgments.jsonl"))...)
	old := read(filepath.Join(*testdata, "nl-dev.jsonl"))
	about, err := releval.ReadAbout(filepath.Join(*testdata, "about.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	x := search.New()
	x.SetResultCache(0)
	x.Upsert(entries...)

	t := &tuner{x: x, nlTune: releval.Split(nl, "tune"), keywords: keywords, older: old,
		fresh: read(filepath.Join(*testdata, "fresh.jsonl")), freshWeight: *freshWeight}
	// The decision's examples: labelled queries of the tune halves, the
	// keyword sets, and every out-of-domain query the tests hold (which
	// must stay unanswered: they weigh more).
	for _, q := range about {
		if releval.Half(q.QID) == "tune" {
			t.examples = append(t.examples, example{query: q.Query, in: q.Domain == "in", weight: 1})
		}
	}
	for _, q := range append(append(slices.Clone(t.nlTune), keywords...), old...) {
		if len(q.Judgments) == 0 {
			t.examples = append(t.examples, example{query: q.Query, weight: hardWeight})
		} else if releval.Half(q.QID) == "tune" || !strings.HasPrefix(q.QID, "nl-") {
			t.examples = append(t.examples, example{query: q.Query, in: true, weight: 1})
		}
	}

	p := start()
	if *from == "fitted" {
		p = search.DefaultParams()
	}
	x.SetParams(p)
	p.Lexicon.About = t.fitAbout()
	best := t.objective(p)
	fmt.Fprintf(os.Stderr, "start: objective %.4f\n", best)
	for pass := range *passes {
		for _, w := range weights(&p) {
			was := *w.v
			for _, f := range w.factors {
				*w.v = was * f
				if !ordered(&p.Lexicon) {
					continue
				}
				if j := t.objective(p); j > best+1e-4 {
					best, was = j, *w.v
					fmt.Fprintf(os.Stderr, "pass %d: %s = %.4g: objective %.4f\n", pass+1, w.name, *w.v, j)
				}
			}
			*w.v = was
		}
		p.Lexicon.About = t.fitAbout()
		x.SetParams(p)
		best = t.objective(p)
		fmt.Fprintf(os.Stderr, "pass %d done, decision refitted: objective %.4f\n", pass+1, best)
	}
	x.SetParams(p)
	fmt.Printf("%#v\n\n", p)
	report(x, nl, keywords, about)
}

// start is where the ascent starts: the weights as they were set by hand
// before they were fitted, so that the same sets give the same fit.
func start() search.Params {
	p := search.DefaultParams()
	p.Fields = [7]float32{3, 2.5, 2, 1.5, 1.5, 1, 0.5} // name, title, tags, package, tool, brief, description
	p.K1, p.NameDamp, p.Popularity, p.Placeholder, p.SameLanguage = 2, 1, 0.02, 0.7, 1
	p.Lexicon = lexicon.Params{
		Stem: 0.95, Synonym: 0.9, Prefix: 0.8, Typo: 0.6,
		Concept: 0.7, Gloss: 0.5, Related: 0.3,
		Unknown: 0.5, UnknownSentence: 0.25,
		Topicality: 0.5, SentencePrior: 10,
		Pair: 1, Product: 1,
	}
	return p
}

// ordered reports whether the weights of the ways a query word finds an
// index word keep the order of how sure each way is: the word's stem, a
// synonym, a longer word it begins, a near spelling, a related word.
func ordered(p *lexicon.Params) bool {
	return p.Stem >= p.Synonym && p.Synonym >= p.Prefix && p.Prefix >= p.Typo && p.Typo >= p.Related
}

// hardWeight is how much more an out-of-domain query of the tests weighs in
// the decision's fit.
const hardWeight = 6

type tuner struct {
	x        *search.Index
	nlTune   []releval.Query
	keywords []releval.Query
	older    []releval.Query // the first natural-language set, whose tests must still pass
	// fresh is the fresh set, counted freshWeight beside the tune half
	fresh       []releval.Query
	freshWeight float64
	examples    []example
}

type example struct {
	query  string
	in     bool
	weight float64
}

// objective is the mean nDCG@10 of the natural-language tune half plus
// that of the keyword sets, less missCost a keyword query that misses and
// what a keyword kind lacks of keywordKindFloor, plus olderWeight that of
// the first natural-language set, under params p.
func (t *tuner) objective(p search.Params) float64 {
	t.x.SetParams(p)
	engine := releval.IndexEngine(t.x)
	nl := releval.Evaluate(t.nlTune, engine, nil).Kinds["overall"].MeanNDCG()
	kws := releval.Evaluate(t.keywords, engine, nil)
	kw := kws.Kinds["overall"]
	j := nl + kw.MeanNDCG() - missCost*float64(len(kw.Missed))
	for _, k := range kws.Kinds {
		if k.Scored > 0 {
			j -= max(0, keywordKindFloor-k.MeanNDCG())
		}
	}
	older := releval.Evaluate(t.older, engine, nil).Kinds["overall"].MeanNDCG()
	j += olderWeight * older
	if t.freshWeight > 0 {
		j += t.freshWeight * releval.Evaluate(t.fresh, engine, nil).Kinds["overall"].MeanNDCG()
	}
	return j
}

// keywordKindFloor is the nDCG@10 below which a kind of the keyword sets
// (keywords, typos, synonyms, …) costs the objective what it lacks: every
// kind must stay strong, not only their mean.
const keywordKindFloor = 0.80

// olderWeight is how much the first natural-language set (75 queries,
// search/testdata/nl-dev.jsonl) counts beside the tune half.
const olderWeight = 0.5

// missCost is what a keyword query with nothing relevant in its first ten
// costs the objective beyond its nDCG: the keyword sets' tests allow none.
const missCost = 0.02

// weight is one weight the ascent tries at some multiples of its value.
type weight struct {
	name    string
	v       *float32
	factors []float32
}

func weights(p *search.Params) []weight {
	scale := []float32{0.5, 0.75, 1.25, 1.5, 2}
	share := []float32{0.5, 0.8, 1.2}
	ws := []weight{
		{"Fields[name]", &p.Fields[0], scale},
		{"Fields[title]", &p.Fields[1], scale},
		{"Fields[tags]", &p.Fields[2], scale},
		{"Fields[package]", &p.Fields[3], scale},
		{"Fields[tool]", &p.Fields[4], scale},
		{"Fields[description]", &p.Fields[6], scale},
		{"K1", &p.K1, scale},
		{"NameDamp", &p.NameDamp, []float32{0.25, 0.5, 0.75}},
		{"Popularity", &p.Popularity, []float32{0.5, 2}},
		{"Placeholder", &p.Placeholder, share},
		{"SameLanguage", &p.SameLanguage, []float32{1.1, 1.25, 1.5}},
		{"Lexicon.Concept", &p.Lexicon.Concept, share},
		{"Lexicon.Gloss", &p.Lexicon.Gloss, share},
		{"Lexicon.Related", &p.Lexicon.Related, []float32{0, 0.5, 1.5}},
		{"Lexicon.Prefix", &p.Lexicon.Prefix, share},
		{"Lexicon.Typo", &p.Lexicon.Typo, share},
		{"Lexicon.Unknown", &p.Lexicon.Unknown, share},
		{"Lexicon.UnknownSentence", &p.Lexicon.UnknownSentence, share},
		{"Lexicon.Topicality", &p.Lexicon.Topicality, []float32{0, 0.5, 1.5, 2}},
		{"Lexicon.SentencePrior", &p.Lexicon.SentencePrior, []float32{0.3, 0.5, 2, 3}},
		{"Lexicon.Pair", &p.Lexicon.Pair, []float32{0, 0.5, 2}},
		{"Lexicon.Product", &p.Lexicon.Product, []float32{0.5, 0.75, 1.5, 2}},
	}
	return ws
}

// fitAbout fits the decision's weights to the examples under the index's
// params: a logistic regression, the classes balanced, then the bias moved
// so that at least 98% of the in-domain examples are answered, and as many
// out-of-domain ones as that allows are not.
func (t *tuner) fitAbout() [lexicon.AboutFeatures + 1]float32 {
	type row struct {
		f      [lexicon.AboutFeatures]float64
		in     bool
		weight float64
	}
	var rows []row
	var nIn, nOut float64
	for _, e := range t.examples {
		f, matched, named := t.x.Evidence(e.query)
		if !matched || named {
			continue // nothing matches it, or it names what entries have: the weights decide nothing
		}
		var r row
		for i, v := range f {
			r.f[i] = float64(v)
		}
		r.in, r.weight = e.in, e.weight
		rows = append(rows, r)
		if e.in {
			nIn += e.weight
		} else {
			nOut += e.weight
		}
	}
	var w [lexicon.AboutFeatures + 1]float64
	const rate, l2 = 0.3, 0.003
	for range 4000 {
		var g [lexicon.AboutFeatures + 1]float64
		for _, r := range rows {
			z := w[lexicon.AboutFeatures]
			for i, v := range r.f {
				z += w[i] * v
			}
			p := 1 / (1 + math.Exp(-max(-30, min(30, z))))
			y, cw := 0.0, r.weight/nOut
			if r.in {
				y, cw = 1, r.weight/nIn
			}
			for i, v := range r.f {
				g[i] += cw * (p - y) * v
			}
			g[lexicon.AboutFeatures] += cw * (p - y)
		}
		for i := range w {
			reg := 0.0
			if i < lexicon.AboutFeatures {
				reg = l2 * w[i]
			}
			w[i] -= rate * (g[i]/2 + reg)
		}
	}
	// The bias: between the score that answers 98% of the in-domain rows
	// and the highest score of an out-of-domain query of the tests, which
	// must stay unanswered (where the two conflict, the tests win).
	score := func(w *[lexicon.AboutFeatures + 1]float64, r row) float64 {
		s := w[lexicon.AboutFeatures]
		for i, v := range r.f {
			s += w[i] * v
		}
		return s
	}
	w[lexicon.AboutFeatures] = 0
	var scores []float64
	hard := math.Inf(-1)
	for _, r := range rows {
		if s := score(&w, r); r.in {
			scores = append(scores, s)
		} else if r.weight == hardWeight {
			hard = max(hard, s)
		}
	}
	slices.Sort(scores)
	cutIn := scores[int(math.Floor(0.02*float64(len(scores))))]
	if hard < cutIn {
		w[lexicon.AboutFeatures] = -(cutIn + hard) / 2
	} else {
		w[lexicon.AboutFeatures] = -hard - 0.005
	}
	for i, v := range w {
		w[i] = math.Round(v*1000) / 1000
	}
	for _, r := range rows {
		for !r.in && r.weight == hardWeight && score(&w, r) > 0 {
			w[lexicon.AboutFeatures] -= 0.001 // rounding must not let one through
		}
	}
	answered := 0
	for _, r := range rows {
		if r.in && score(&w, r) > 0 {
			answered++
		}
	}
	fmt.Fprintf(os.Stderr, "decision: %d of %d in-domain examples answered\n", answered, len(scores))
	var out [lexicon.AboutFeatures + 1]float32
	for i, v := range w {
		out[i] = float32(v)
	}
	return out
}

// report prints the figures of both halves.
func report(x *search.Index, nl, keywords []releval.Query, about []releval.AboutQuery) {
	engine := releval.IndexEngine(x)
	for _, half := range []string{"tune", "check"} {
		r := releval.Evaluate(releval.Split(nl, half), engine, nil)
		fmt.Printf("natural-language set, %s half:\n%s\n", half, r.Table())
		in, inAnswered, out, outNothing := 0, 0, 0, 0
		for _, q := range about {
			if releval.Half(q.QID) != half {
				continue
			}
			answered := x.Search(q.Query, 1).Total > 0
			if q.Domain == "in" {
				in++
				if answered {
					inAnswered++
				}
			} else {
				out++
				if !answered {
					outNothing++
				}
			}
		}
		fmt.Printf("about set, %s half: in-domain answered %d of %d (%.1f%%), out-of-domain answered nothing %d of %d (%.1f%%)\n\n",
			half, inAnswered, in, 100*float64(inAnswered)/float64(in), outNothing, out, 100*float64(outNothing)/float64(out))
	}
	r := releval.Evaluate(keywords, engine, nil)
	fmt.Printf("keyword sets:\n%s", r.Table())
}
