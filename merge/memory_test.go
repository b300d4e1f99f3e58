package merge

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// BenchmarkIndexMemory measures what a merged index keeps besides its
// records and the index inside it (here one that keeps nothing), and what
// its writes cost, over the shared directory and ten times it (issue 36):
//
//	go test ./merge -run '^$' -bench IndexMemory -benchtime 3x
//
// heap: HeapInuse after Upsert of the whole directory into an empty
// index, less before, in bytes a record (the records themselves are kept
// by the benchmark, so not counted); replica: HeapAlloc after the same,
// less before, once the records given are dropped, as a replica drops
// those it read (what the index keeps of them counted); build: that
// Upsert's time;
// write-evidence: one record written again with other evidence (its
// website, so its package, changes, and back: its group splits and joins
// again); write-brief: one record written again with a new brief (its
// group is merged again).
func BenchmarkIndexMemory(b *testing.B) {
	entries, _ := directory(b, sharedData(b))
	for _, scale := range []int{1, 10} {
		all := scaledDirectory(entries, scale)
		b.Run(fmt.Sprintf("heap/x%d", scale), func(b *testing.B) {
			var perRecord float64
			for b.Loop() {
				b.StopTimer()
				before := heapInuse()
				x := NewIndex(discard{}, DefaultRules())
				b.StartTimer()
				x.Upsert(all...)
				b.StopTimer()
				perRecord = float64(heapInuse()-before) / float64(len(all))
				runtime.KeepAlive(x)
				b.StartTimer()
			}
			b.ReportMetric(perRecord, "B/record")
			b.ReportMetric(perRecord*float64(len(all))/1e6, "MB")
		})
		b.Run(fmt.Sprintf("replica/x%d", scale), func(b *testing.B) {
			var perRecord float64
			var n int
			for b.Loop() {
				b.StopTimer()
				before := heapAlloc()
				var x *Index
				x, n = replica(b, scale)
				perRecord = float64(heapAlloc()-before) / float64(n)
				runtime.KeepAlive(x)
				b.StartTimer()
			}
			b.ReportMetric(perRecord, "B/record")
			b.ReportMetric(perRecord*float64(n)/1e6, "MB")
		})
		b.Run(fmt.Sprintf("build/x%d", scale), func(b *testing.B) {
			for b.Loop() {
				NewIndex(discard{}, DefaultRules()).Upsert(all...)
			}
		})
		x := NewIndex(discard{}, DefaultRules())
		x.Upsert(all...)
		// The package corpus's record of server-postgres, in a group of
		// two with the registry's.
		at := slices.IndexFunc(all, func(e *mcpdir.Entry) bool { return e.Name == "@modelcontextprotocol/server-postgres" })
		if at < 0 {
			b.Fatal("no record of @modelcontextprotocol/server-postgres")
		}
		orig := all[at]
		moved := *orig
		moved.WebsiteURL = "https://example.com/server-postgres"
		runtime.GC() // not the build's garbage: the writes'
		b.Run(fmt.Sprintf("write-evidence/x%d", scale), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if i++; i%2 == 1 {
					x.Upsert(&moved)
				} else {
					x.Upsert(orig)
				}
			}
			x.Upsert(orig)
		})
		b.Run(fmt.Sprintf("write-brief/x%d", scale), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				e := *orig
				e.Brief = "A brief, version " + strconv.Itoa(i)
				x.Upsert(&e)
			}
			x.Upsert(orig)
		})
	}
}

// scaledDirectory is scale copies of the directory: the records
// themselves, then variants of each (a name prefixed or suffixed, its own
// npm package, and that package's page as its website; the rest as the
// record's).
func scaledDirectory(entries []*mcpdir.Entry, scale int) []*mcpdir.Entry {
	rng := rand.New(rand.NewPCG(1, 2))
	affixes := []string{"pro", "lite", "plus", "next", "cloud", "local", "fast", "secure", "open", "community"}
	all := slices.Clone(entries)
	for k := 1; k < scale; k++ {
		for _, e := range entries {
			v := *e
			a := affixes[rng.IntN(len(affixes))]
			if rng.IntN(2) == 0 {
				v.Name = a + "-" + e.Name + "-" + strconv.Itoa(k)
			} else {
				v.Name = e.Name + "-" + a + "-" + strconv.Itoa(k)
			}
			v.WebsiteURL = "https://www.npmjs.com/package/" + v.Name
			v.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: v.Name}}
			v.Key = ""
			v.ID = mcpdir.EntryID(v.NaturalKey())
			all = append(all, &v)
		}
	}
	return all
}

// replica is a merged index of the directory at scale as a replica holds
// it: the records it was given dropped (its inner index keeps nothing),
// what it keeps of them stays. n is how many records.
func replica(b *testing.B, scale int) (x *Index, n int) {
	entries, _ := directory(b, sharedData(b))
	all := scaledDirectory(entries, scale)
	x = NewIndex(discard{}, DefaultRules())
	x.Upsert(all...)
	return x, len(all)
}

// collected is the heap's statistics once garbage is collected.
func collected() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

func heapAlloc() int64 { return int64(collected().HeapAlloc) }
func heapInuse() int64 { return int64(collected().HeapInuse) }

// discard is an inner index that keeps nothing, so that a measurement of
// the merged index is of it alone.
type discard struct{}

func (discard) Search(string, int) mcpdir.SearchResult { return mcpdir.SearchResult{} }
func (discard) Find(mcpdir.Query) mcpdir.SearchResult  { return mcpdir.SearchResult{} }
func (discard) Upsert(...*mcpdir.Entry)                {}
func (discard) UpsertPacked(...packed.Entry)           {}
func (discard) Remove(...string)                       {}
func (discard) Get(string) (*mcpdir.Entry, bool)       { return nil, false }
func (discard) Len() int                               { return 0 }
func (discard) Generation() uint64                     { return 0 }
func (discard) Entries(func(*mcpdir.Entry))            {}
