package search

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// BenchmarkMeaningLayers measures what each table of meaning adds: the
// judged sets run on the corpus indexed with every table, then without
// each in turn. It prints nDCG@10 per set and kind, and the queries with
// nothing relevant in the top 10:
//
//	go test ./search -run '^$' -bench MeaningLayers -benchtime 1x
func BenchmarkMeaningLayers(b *testing.B) {
	entries, _ := loadCorpus(b)
	sets := []struct{ name, path string }{
		{"keyword", filepath.Join(sharedData(b), "relevance", "dev.jsonl")},
		{"natural", filepath.Join("testdata", "nl-dev.jsonl")},
	}
	layers := []struct {
		name string
		off  func() (restore func())
	}{
		{"all", func() func() { return func() {} }},
		{"no concepts", func() func() {
			was := conceptCues
			conceptCues = cueTable{}
			return func() { conceptCues = was }
		}},
		{"no gloss", func() func() {
			was := glossCues
			glossCues = cueTable{}
			return func() { glossCues = was }
		}},
		{"no related terms", func() func() {
			was := relatedByStem
			relatedByStem = nil
			return func() { relatedByStem = was }
		}},
		{"no other languages", func() func() {
			was := languages
			languages = nil
			return func() { languages = was }
		}},
	}
	var out strings.Builder
	for range b.N {
		out.Reset()
		for _, l := range layers {
			restore := l.off()
			x := New()
			x.Upsert(entries...)
			fmt.Fprintf(&out, "%-20s", l.name)
			for _, set := range sets {
				r := releval.Evaluate(readQueries(b, set.path), engine(x), nil)
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
