package search

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// sharedData finds the project's shared data: $MCPDIR_SHARED_DATA, or
// ../shared/data beside the module root (the directory holding go.mod).
func sharedData(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("MCPDIR_SHARED_DATA"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if _, err := os.Stat(filepath.Join(d, "packages-corpus.jsonl")); err != nil {
				tb.Skip("../shared/data not found: relevance evaluation skipped")
			}
			return d
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("../shared/data not found (no go.mod above the test): relevance evaluation skipped")
		}
		dir = parent
	}
}

var corpus struct {
	once    sync.Once
	entries []*mcpdir.Entry
	bytes   int64
	err     error
}

// loadCorpus reads packages-corpus.jsonl as the directory would import it:
// through mcpdir.ParseRecord, with ids from natural keys.
func loadCorpus(tb testing.TB) ([]*mcpdir.Entry, int64) {
	tb.Helper()
	dir := sharedData(tb)
	corpus.once.Do(func() {
		f, err := os.Open(filepath.Join(dir, "packages-corpus.jsonl"))
		if err != nil {
			corpus.err = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, mcpdir.MaxRecordBytes+1)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			corpus.bytes += int64(len(sc.Bytes())) + 1
			if len(line) == 0 {
				continue
			}
			e, err := mcpdir.ParseRecord(line)
			if err != nil {
				continue
			}
			e.ID = mcpdir.EntryID(e.NaturalKey())
			corpus.entries = append(corpus.entries, e)
		}
		corpus.err = sc.Err()
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
		x.Upsert(entries...)
		corpusIndex.x = x
	})
	return corpusIndex.x
}
