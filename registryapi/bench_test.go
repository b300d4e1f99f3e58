package registryapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/internal/shareddir"
	"github.com/mcpdir/mcpdir/search"
)

// BenchmarkView builds the list's view over the shared directory (the
// packages corpus, the registry's files and the starter directory) in a
// packed search index, and reports the heap the view keeps a row:
//
//	go test ./registryapi -run '^$' -bench BenchmarkView -benchtime 5x
//
// With MCPDIR_BENCH_SCALE=10 (or 100) it runs on that many times the
// directory, each copy's entries renamed.
func BenchmarkView(b *testing.B) {
	scale := 1
	if s := os.Getenv("MCPDIR_BENCH_SCALE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("MCPDIR_BENCH_SCALE=%q: want a positive integer", s)
		}
		scale = n
	}
	dir := filepath.Join("..", "..", "shared", "data")
	if d := os.Getenv("MCPDIR_SHARED_DATA"); d != "" {
		dir = d
	}
	if f := shareddir.Missing(dir); f != "" {
		b.Skipf("%s not found in %s", f, dir)
	}
	entries, _, err := shareddir.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	x := search.New()
	x.SetResultCache(0)
	x.Upsert(entries...)
	for k := 1; k < scale; k++ {
		copies := make([]*mcpdir.Entry, len(entries))
		for i, e := range entries {
			c := *e
			c.Name = e.Name + "-" + strconv.Itoa(k)
			c.WebsiteURL = e.WebsiteURL + "-" + strconv.Itoa(k)
			c.ID = mcpdir.EntryID(c.NaturalKey())
			copies[i] = &c
		}
		x.Upsert(copies...)
	}
	entries = nil
	a := &API{Dir: x}
	ctx := context.Background()
	before := heap()
	start := time.Now()
	v, err := a.current(ctx)
	if err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	kept := heap() - before
	fmt.Printf("%dx: %d entries, %d rows; first build %s; the view keeps %.0f MB, %.0f B/row\n",
		scale, x.Len(), len(v.rows), took.Round(time.Millisecond), float64(kept)/(1<<20), float64(kept)/float64(len(v.rows)))
	b.ReportMetric(float64(kept)/float64(len(v.rows)), "B/row")
	b.ResetTimer()
	for range b.N {
		a.VersionsChanged()
		if _, err := a.current(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.KeepAlive(a)
}

// heap is the heap in use once collected.
func heap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
