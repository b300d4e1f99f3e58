// Command priorfit fits the priors of the ranking (search.Params: Up,
// Down, Warned, WarnedHigh, Official, Verified, Popularity) to the tune
// half of the quality set, and prints them with the figures of both
// halves, for search.DefaultParams:
//
//	go run ./search/internal/priorfit [-passes 2] [-v]
//
// The quality set (search/testdata/quality.jsonl) judges the starter
// directory with live checks and tool warnings set on some of its entries
// (search/testdata/quality-signals.jsonl, releval.QualityDirectory): the
// packages corpus has no live checks, tools or official entries, so the
// natural-language and keyword sets cannot fit those priors. Popularity is
// the one prior the corpus has (npm downloads): it is fitted on the
// quality tune half plus the objective of search/internal/tune (the
// natural-language tune half and the keyword sets), over the corpus.
//
// Each prior in turn is tried over a grid of values, the others held, and
// moves only where the tune half gains more than tolerance: to the value
// nearest its own that scores within tolerance of the best. The check
// halves are never read by the fit.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

func main() {
	passes := flag.Int("passes", 2, "passes over the priors")
	verbose := flag.Bool("v", false, "print the objective at every value tried")
	testdata := flag.String("testdata", "search/testdata", "the judged sets of the project")
	flag.Parse()
	es, err := releval.QualityDirectory(filepath.Join(*testdata, "quality-signals.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	read := releval.MustReadQueries
	quality := read(filepath.Join(*testdata, "quality.jsonl"))
	qx := search.New()
	qx.SetResultCache(0)
	qx.Upsert(es...)

	dir, entries, err := releval.Corpus()
	if err != nil {
		log.Fatal(err)
	}
	cx := search.New()
	cx.SetResultCache(0)
	cx.Upsert(entries...)
	nlTune := releval.Split(read(filepath.Join(*testdata, "nl.jsonl")), "tune")
	keywords := append(read(filepath.Join(dir, "relevance", "dev.jsonl")), read(filepath.Join(*testdata, "extra-judgments.jsonl"))...)

	qualityOf := func(p search.Params, half string) float64 {
		qx.SetParams(p)
		return releval.Evaluate(releval.Split(quality, half), releval.IndexEngine(qx), nil).Kinds["overall"].MeanNDCG()
	}
	corpusOf := func(p search.Params) float64 {
		cx.SetParams(p)
		e := releval.IndexEngine(cx)
		return releval.Evaluate(nlTune, e, nil).Kinds["overall"].MeanNDCG() + releval.Evaluate(keywords, e, nil).Kinds["overall"].MeanNDCG()
	}

	p := search.DefaultParams()
	fmt.Fprintf(os.Stderr, "start: quality tune %.4f, corpus %.4f\n", qualityOf(p, "tune"), corpusOf(p))
	for pass := range *passes {
		for _, w := range priors(&p) {
			was := *w.v
			grid := append([]float32{was}, w.grid...)
			scores := make([]float64, len(grid))
			for i, v := range grid {
				*w.v = v
				scores[i] = qualityOf(p, "tune")
				if w.corpus {
					scores[i] += corpusOf(p)
				}
			}
			if *verbose {
				for i := range grid {
					fmt.Fprintf(os.Stderr, "  %s %.4g: %.4f\n", w.name, grid[i], scores[i])
				}
			}
			*w.v = nearestOfBest(grid, scores)
			fmt.Fprintf(os.Stderr, "pass %d: %s %.4g → %.4g (objective %.4f)\n", pass+1, w.name, was, *w.v, maxOf(scores))
		}
	}
	fmt.Printf("Up: %.4g, Down: %.4g, Warned: %.4g, WarnedHigh: %.4g, Official: %.4g, Verified: %.4g, Popularity: %.4g\n",
		p.Up, p.Down, p.Warned, p.WarnedHigh, p.Official, p.Verified, p.Popularity)
	flat := p
	flat.Popularity, flat.Official, flat.Verified, flat.Up, flat.Down, flat.Warned, flat.WarnedHigh = 0, 1, 1, 1, 1, 1, 1
	for _, half := range []string{"tune", "check"} {
		fmt.Printf("quality %s half: nDCG@10 %.3f (without priors %.3f)\n", half, qualityOf(p, half), qualityOf(flat, half))
	}
}

// prior is one prior and the values it is tried at; corpus marks one the
// packages corpus has too.
type prior struct {
	name   string
	v      *float32
	grid   []float32
	corpus bool
}

func priors(p *search.Params) []prior {
	up := geometric(1, 2, 16)      // a factor that lifts
	down := geometric(0.25, 1, 16) // one that lowers
	return []prior{
		{"Official", &p.Official, up, false},
		{"Verified", &p.Verified, up, false},
		{"Up", &p.Up, up, false},
		{"Down", &p.Down, down, false},
		{"Warned", &p.Warned, down, false},
		{"WarnedHigh", &p.WarnedHigh, down, false},
		{"Popularity", &p.Popularity, []float32{0, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04}, true},
	}
}

// geometric is n values from a to b, evenly spaced in log.
func geometric(a, b float64, n int) []float32 {
	g := make([]float32, n)
	for i := range g {
		g[i] = float32(math.Round(a*math.Pow(b/a, float64(i)/float64(n-1))*1e4) / 1e4)
	}
	return g
}

// tolerance is how much better than the current value another must score
// to be taken: a thousandth of mean nDCG@10, an eighth of what one query
// of thirteen moving one grade-1 entry a place costs. The tune half is
// small; a prior moves only for what it shows.
const tolerance = 0.001

// nearestOfBest returns grid[0], the current value, unless the best score
// beats its score by more than tolerance; then, of the values within
// tolerance of the best, the one nearest the current value.
func nearestOfBest(grid []float32, scores []float64) float32 {
	best := maxOf(scores)
	if scores[0] >= best-tolerance {
		return grid[0]
	}
	pick := -1
	for i := range grid {
		if scores[i] >= best-tolerance && (pick < 0 || math.Abs(float64(grid[i]-grid[0])) < math.Abs(float64(grid[pick]-grid[0]))) {
			pick = i
		}
	}
	return grid[pick]
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
