package search

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"weak"

	"github.com/mcpdir/mcpdir"
)

// The index keeps entries packed: what it was given can be collected, and
// what it gives back (a hit, Get, Entries) equals it field for field.
func TestIndexKeepsNoEntryItWasGiven(t *testing.T) {
	x := New()
	given := testEntries()
	want := make(map[string]mcpdir.Entry, len(given))
	weaks := make([]weak.Pointer[mcpdir.Entry], len(given))
	for i, e := range given {
		want[e.ID] = *e
		weaks[i] = weak.Make(e)
	}
	x.Upsert(given...)
	given = nil
	runtime.GC()
	for i, w := range weaks {
		if w.Value() != nil {
			t.Fatalf("entry %d is still held after it was indexed", i)
		}
	}
	seen := 0
	x.Entries(func(e *mcpdir.Entry) {
		seen++
		if w := want[e.ID]; !reflect.DeepEqual(*e, w) {
			t.Errorf("Entries gave\n%+v\nwant\n%+v", *e, w)
		}
	})
	if seen != len(want) {
		t.Fatalf("Entries gave %d entries, want %d", seen, len(want))
	}
	for id, w := range want {
		if e, ok := x.Get(id); !ok || !reflect.DeepEqual(*e, w) {
			t.Errorf("Get(%s) = %+v", id, e)
		}
	}
	res := x.Search("postgres", 3)
	if len(res.Hits) == 0 {
		t.Fatal("postgres: no hits")
	}
	// A hit stays the same pointer while it is kept unpacked: callers keep
	// an item's encoding by it.
	again := x.Search("postgres database", 3)
	if h, ok := x.Get(res.Hits[0].Entry.ID); !ok || h != res.Hits[0].Entry || again.Hits[0].Entry.ID == h.ID && again.Hits[0].Entry != h {
		t.Fatal("a hit's entry is unpacked again while it is kept")
	}
}

// A directory indexed in batches (as a replica reads its store) clips its
// postings lists a few times, not once a batch, and is left with little
// spare room in them.
func TestBatchedUpsertsClipRarely(t *testing.T) {
	x := New()
	words := strings.Fields("postgres database query tools server files search github browser memory")
	clips, last := 0, 0
	const batches = 30
	for b := range batches {
		var es []*mcpdir.Entry
		for i := range clipAfter {
			n := b*clipAfter + i
			es = append(es, &mcpdir.Entry{ID: strconv.Itoa(n), Name: "server-" + strconv.Itoa(n),
				Brief: words[n%len(words)] + " " + words[(n/7)%len(words)] + " and " + words[(n/3)%len(words)]})
		}
		x.Upsert(es...)
		if x.clippedAt != last {
			clips, last = clips+1, x.clippedAt
		}
	}
	if clips == 0 || clips > 12 {
		t.Errorf("%d batches clipped the postings %d times, want a few", batches, clips)
	}
	var spare, used int
	for _, tm := range x.terms {
		spare += cap(tm.postings) - len(tm.postings)
		used += len(tm.postings)
	}
	if spare > used/2 {
		t.Errorf("%d spare bytes in postings lists of %d", spare, used)
	}
}

// A walk over every entry unpacks each into one struct, its packages and
// extra members into memory reused too: it makes no garbage an entry
// (issue 36: at 100x, 1.6 GB of structs alone, and 560 MB of packages and
// extra members).
func TestEntriesWalkInOneStruct(t *testing.T) {
	x := New()
	for i := range 1000 {
		e := entry("server-"+strconv.Itoa(i), "a server of things", int64(i))
		e.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: e.Name}}
		e.Extra = mcpdir.Extra(`{"last_release_month":"2026-0` + strconv.Itoa(1+i%9) + `","n":` + strconv.Itoa(i) + `}`)
		x.Upsert(e)
	}
	n := 0
	allocs := testing.AllocsPerRun(3, func() {
		n = 0
		x.Entries(func(e *mcpdir.Entry) {
			if e.Name != "" {
				n++
			}
		})
	})
	if n != 1000 || allocs > 10 {
		t.Fatalf("a walk over %d entries allocated %v times", n, allocs)
	}
}
