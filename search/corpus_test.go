package search

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// sharedData is the shared data directory; without it the test is skipped.
func sharedData(tb testing.TB) string {
	tb.Helper()
	dir, missing := releval.SharedData()
	if dir == "" {
		tb.Skip(missing + ": relevance evaluation skipped")
	}
	return dir
}

var corpus struct {
	once    sync.Once
	entries []*mcpdir.Entry
	bytes   int64
	err     error
}

// loadCorpus is the packages corpus as the directory imports it, read once
// per test binary, and its size in bytes.
func loadCorpus(tb testing.TB) ([]*mcpdir.Entry, int64) {
	tb.Helper()
	dir := sharedData(tb)
	corpus.once.Do(func() {
		corpus.entries, corpus.bytes, corpus.err = releval.LoadCorpus(dir)
	})
	if corpus.err != nil {
		tb.Fatal(corpus.err)
	}
	return corpus.entries, corpus.bytes
}

var corpusIndex struct {
	once sync.Once
	x    *Index
}

// loadIndex is the corpus indexed, built once per test binary.
func loadIndex(tb testing.TB) *Index {
	tb.Helper()
	entries, _ := loadCorpus(tb)
	corpusIndex.once.Do(func() {
		x := New()
		x.SetResultCache(0) // the tests and benchmarks here are of the search, not of its cache
		x.Upsert(entries...)
		corpusIndex.x = x
	})
	return corpusIndex.x
}

// readQueries reads judged queries or fails the test.
func readQueries(tb testing.TB, path string) []releval.Query {
	tb.Helper()
	qs, err := releval.ReadQueries(path)
	if err != nil {
		tb.Fatal(err)
	}
	return qs
}

// engine is the index as the evaluation runs it.
func engine(x *Index) releval.Engine { return releval.IndexEngine(x) }

// judgedQueries are the judged queries of both sets: the shared dev set's
// keywords and our natural-language set's sentences.
func judgedQueries(tb testing.TB) []releval.Query {
	return append(benchQueries(tb), readQueries(tb, filepath.Join("testdata", "nl-dev.jsonl"))...)
}
