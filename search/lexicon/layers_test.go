package lexicon_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/search/internal/releval"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// BenchmarkMeaningLayers measures what each table of meaning adds: the
// judged sets run on the corpus indexed with every table, then without
// each in turn. It prints nDCG@10 per set and kind, and the queries with
// nothing relevant in the top 10:
//
//	go test ./search/lexicon -run '^$' -bench MeaningLayers -benchtime 1x
func BenchmarkMeaningLayers(b *testing.B) {
	dir, missing := releval.SharedData()
	if dir == "" {
		b.Skip(missing + ": measurement skipped")
	}
	entries, _, err := releval.LoadCorpus(dir)
	if err != nil {
		b.Fatal(err)
	}
	sets := []struct{ name, path string }{
		{"keyword", filepath.Join(dir, "relevance", "dev.jsonl")},
		{"natural", filepath.Join("..", "testdata", "nl-dev.jsonl")},
	}
	layers := []string{"", "concepts", "related", "gloss", "languages"}
	var out strings.Builder
	for range b.N {
		out.Reset()
		for _, l := range layers {
			restore, name := func() {}, "all"
			if l != "" {
				restore, name = lexicon.DisableLayer(l), "no "+l
			}
			x := search.New()
			x.SetResultCache(0)
			x.Upsert(entries...)
			fmt.Fprintf(&out, "%-20s", name)
			for _, set := range sets {
				qs, err := releval.ReadQueries(set.path)
				if err != nil {
					b.Fatal(err)
				}
				r := releval.Evaluate(qs, releval.IndexEngine(x), nil)
				for _, k := range r.KindNames() {
					if kind := r.Kinds[k]; kind.Scored > 0 {
						fmt.Fprintf(&out, " %s/%s %.3f", set.name, k, kind.MeanNDCG())
					}
				}
				fmt.Fprintf(&out, " %s/misses %d", set.name, len(r.Kinds["overall"].Missed))
			}
			out.WriteString("\n")
			restore()
		}
	}
	fmt.Print(out.String())
}
