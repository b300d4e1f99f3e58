package merge

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// A record is 64 bytes, a size class: a field more takes it to 80.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n > 64 {
		t.Errorf("a record is %d bytes", n)
	}
}

func newRecordTable() recordTable[string] {
	return NewIndex(discard{}, DefaultRules()).records
}

func recordOf(id string) *record { return &record{p: packed.Pack(&mcpdir.Entry{ID: id})} }

// Through adds, removals and growth, the record table finds what a map by
// id would.
func TestRecordTableIsAMap(t *testing.T) {
	for _, ids := range []int{45, 3000} { // 45 fills most of 64 slots: clusters wrap
		r := rand.New(rand.NewPCG(3, uint64(ids)))
		tab := newRecordTable()
		want := map[string]*record{}
		check := func(step int) {
			t.Helper()
			for id, rec := range want {
				if got := tab.get(id); got != rec {
					t.Fatalf("%d ids, step %d: %s is %p, want %p", ids, step, id, got, rec)
				}
			}
			if tab.get("absent") != nil {
				t.Fatalf("%d ids, step %d: an absent id found", ids, step)
			}
			all := map[string]*record{}
			for rec := range tab.all {
				all[rec.id()] = rec
			}
			if tab.n != len(want) || !maps.Equal(all, want) {
				t.Fatalf("%d ids, step %d: %d held, %d walked, want %d", ids, step, tab.n, len(all), len(want))
			}
		}
		for step := range 20000 {
			e := &mcpdir.Entry{ID: strconv.Itoa(r.IntN(ids))}
			if len(e.ID) == 2 { // one without an id, as a store would give it
				e.ID, e.Name = "", e.ID
			}
			id := idOf(e)
			switch slot, got := tab.lookup(id); {
			case got != nil && r.IntN(2) == 0:
				tab.removeAt(slot)
				delete(want, id)
			case got != nil: // written again: a new pack, the same id
				got.p = packed.Pack(e)
			default:
				rec := &record{p: packed.Pack(e)}
				tab.add(rec)
				want[id] = rec
			}
			if step%97 == 0 {
				check(step)
			}
		}
		check(-1)
	}
}

// A cluster that wraps past the table's end is found whole after its
// head goes.
func TestRecordTableWraps(t *testing.T) {
	tab := newRecordTable()
	tab.slots = make([]*record, 64)
	var ids []string
	for i := 0; len(ids) < 3; i++ {
		if id := strconv.Itoa(i); tab.home(id) == 63 {
			ids = append(ids, id)
		}
	}
	var recs []*record
	for _, id := range ids {
		recs = append(recs, recordOf(id))
		tab.add(recs[len(recs)-1])
	}
	if tab.slots[63] != recs[0] || tab.slots[0] != recs[1] || tab.slots[1] != recs[2] {
		t.Fatalf("slots 63, 0, 1: %p %p %p", tab.slots[63], tab.slots[0], tab.slots[1])
	}
	slot, _ := tab.lookup(ids[0])
	tab.removeAt(slot)
	for i, id := range ids[1:] {
		if got := tab.get(id); got != recs[i+1] {
			t.Fatalf("%s: %p after its cluster's head went", id, got)
		}
	}
}

// Through records linked, relinked and unlinked, each key's bearers are
// those a map of sets would hold: keys shared as first keys and as
// others, and keys whose homes collide.
func TestBearersAreAMapOfSets(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	x := &Index{bearers: newBearers()}
	var keys []uint64
	for j := range 40 {
		keys = append(keys, uint64(j+1)<<32|uint64(60+j%5)&63) // five homes of 64 slots, the last wrapping
	}
	var recs []*record
	for i := range 3000 {
		recs = append(recs, recordOf(strconv.Itoa(i)))
	}
	want := map[uint64]map[*record]bool{}
	check := func(step int) {
		t.Helper()
		for _, k := range keys {
			got := map[*record]bool{}
			for rec := range x.bearers.of(k) {
				if got[rec] {
					t.Fatalf("step %d: key %x yields %s twice", step, k, rec.id())
				}
				got[rec] = true
			}
			if !maps.Equal(got, want[k]) && len(got)+len(want[k]) > 0 {
				t.Fatalf("step %d: key %x has %d bearers, want %d", step, k, len(got), len(want[k]))
			}
		}
	}
	for step := range 20000 {
		rec := recs[r.IntN(len(recs))]
		for k := range rec.keys.all {
			delete(want[k], rec)
		}
		var ks []uint64
		for range r.IntN(4) { // none: unlinked
			if k := keys[r.IntN(len(keys))]; !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
		x.link(rec, makeKeyList(ks))
		for _, k := range ks {
			if want[k] == nil {
				want[k] = map[*record]bool{}
			}
			want[k][rec] = true
		}
		if step%97 == 0 {
			check(step)
		}
	}
	check(-1)
	for _, rec := range recs {
		x.link(rec, keyList{})
	}
	if x.bearers.first.n != 0 || len(x.bearers.more) != 0 {
		t.Fatalf("unlinked, %d first bearers and %d keys of more remain", x.bearers.first.n, len(x.bearers.more))
	}
}
