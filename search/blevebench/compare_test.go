package blevebench

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// engine is one contender: how it answers a query with a page of size
// results.
type engine struct {
	name   string
	build  time.Duration
	search func(q string, size int) (ranked []string, total int)
}

// BenchmarkCompare builds our index and Bleve over the corpus, evaluates
// both on the dev queries, times them in a sub-benchmark each (a 10-hit
// page, the dev queries in turn), and prints the results side by side.
func BenchmarkCompare(b *testing.B) {
	dir, missing := releval.SharedData()
	if dir == "" {
		b.Skip(missing + ": comparison skipped")
	}
	entries, _, err := releval.LoadCorpus(dir)
	if err != nil {
		b.Fatal(err)
	}
	qs, err := releval.ReadQueries(filepath.Join(dir, "relevance", "dev.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	engines := []engine{ours(entries), bleveEngine(b, entries, false), bleveEngine(b, entries, true)}
	reports := make([]*releval.Report, len(engines))
	var table strings.Builder
	fmt.Fprintf(&table, "%d entries, %d queries\n\n%-20s %9s %8s %10s %7s %9s %9s %9s\n", len(entries), len(qs),
		"engine", "build", "nDCG@10", "recall@50", "misses", "p50", "p99", "OOD hits")
	for i, e := range engines {
		reports[i] = releval.Evaluate(qs, func(q string) ([]string, int) { return e.search(q, 50) }, nil)
		var lat []time.Duration
		b.Run(strings.ReplaceAll(e.name, " ", "_"), func(b *testing.B) {
			lat = lat[:0]
			for n := 0; b.Loop(); n++ {
				start := time.Now()
				e.search(qs[n%len(qs)].Query, 10)
				lat = append(lat, time.Since(start))
			}
			p50, p99 := percentiles(lat)
			b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
			b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
			b.ReportMetric(reports[i].Kinds["overall"].MeanNDCG(), "nDCG@10")
		})
		p50, p99 := percentiles(lat)
		o := reports[i].Kinds["overall"]
		fmt.Fprintf(&table, "%-20s %9s %8.3f %10.3f %7d %9s %9s %9d\n", e.name, e.build.Round(time.Millisecond),
			o.MeanNDCG(), o.Recall/float64(o.Scored), len(o.Missed), p50, p99, len(reports[i].Answered))
	}
	fmt.Fprintf(&table, "\nnDCG@10 by kind:\n%-14s", "kind")
	for _, e := range engines {
		fmt.Fprintf(&table, " %20s", e.name)
	}
	for _, kind := range reports[0].KindNames() {
		if reports[0].Kinds[kind].Scored == 0 {
			continue
		}
		fmt.Fprintf(&table, "\n%-14s", kind)
		for _, r := range reports {
			fmt.Fprintf(&table, " %20.3f", r.Kinds[kind].MeanNDCG())
		}
	}
	fmt.Println(table.String())
}

func ours(entries []*mcpdir.Entry) engine {
	start := time.Now()
	x := search.New()
	x.SetResultCache(0) // every query searched, as Bleve searches it
	x.Upsert(entries...)
	return engine{name: "mcpdir search", build: time.Since(start), search: func(q string, size int) ([]string, int) {
		res := x.Search(q, size)
		ranked := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = h.Entry.WebsiteURL
		}
		return ranked, res.Total
	}}
}

// doc is what Bleve indexes of an entry.
type doc struct {
	Name  string `json:"name"`
	Brief string `json:"brief"`
}

// bleveEngine indexes the entries in memory as Bleve is commonly set up: English
// analysis (stop words, possessives, Porter stemming) of name and brief,
// the name boosted, any word of the query matching. With fuzzy it also
// matches words within Bleve's automatic edit distance (1 or 2 by length,
// first letter kept), its typo tolerance.
func bleveEngine(b *testing.B, entries []*mcpdir.Entry, fuzzy bool) engine {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	dm := bleve.NewDocumentMapping()
	dm.AddFieldMappingsAt("name", text)
	dm.AddFieldMappingsAt("brief", text)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = en.AnalyzerName
	start := time.Now()
	idx, err := bleve.NewMemOnly(im)
	if err != nil {
		b.Fatal(err)
	}
	batch := idx.NewBatch()
	for _, e := range entries {
		// Website URLs are unique in the corpus: they serve as ids.
		if err := batch.Index(e.WebsiteURL, doc{Name: e.Name, Brief: e.Brief}); err != nil {
			b.Fatal(err)
		}
		if batch.Size() == 1000 {
			if err := idx.Batch(batch); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
	if err := idx.Batch(batch); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	name := "bleve v2.6.1"
	if fuzzy {
		name += " +fuzzy"
	}
	return engine{name: name, build: build, search: func(q string, size int) ([]string, int) {
		var qs []query.Query
		for field, boost := range map[string]float64{"name": 3, "brief": 1} {
			m := bleve.NewMatchQuery(q)
			m.SetField(field)
			m.SetBoost(boost)
			qs = append(qs, m)
			if fuzzy {
				f := bleve.NewMatchQuery(q)
				f.SetField(field)
				f.SetBoost(boost / 3)
				f.SetAutoFuzziness(true)
				f.SetPrefix(1)
				qs = append(qs, f)
			}
		}
		req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), size, 0, false)
		res, err := idx.Search(req)
		if err != nil {
			b.Fatal(err)
		}
		ranked := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = h.ID
		}
		return ranked, int(res.Total)
	}}
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return at(0.50).Round(time.Microsecond), at(0.99).Round(time.Microsecond)
}
