package search

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// The id table answers as a map would through adds, replacements and
// removals (the backward shift of linear probing, around the table's end
// too), growth and a reset.
func TestIDTableIsAMap(t *testing.T) {
	for _, ids := range []int{45, 3000} { // 45 fills most of 64 slots: clusters wrap
		testIDTable(t, ids)
	}
}

func testIDTable(t *testing.T, ids int) {
	r := rand.New(rand.NewPCG(3, uint64(ids)))
	var tab idTable
	var packs []packed.Entry
	want := map[string]uint32{}
	check := func(step int) {
		t.Helper()
		for id, d := range want {
			if got, ok := tab.get(id, packs); !ok || got != d {
				t.Fatalf("step %d: %s at %d, %v; want %d", step, id, got, ok, d)
			}
		}
		if _, ok := tab.get("absent", packs); ok {
			t.Fatalf("step %d: an absent id found", step)
		}
		if tab.n != len(want) {
			t.Fatalf("step %d: %d held, want %d", step, tab.n, len(want))
		}
	}
	for step := range 20000 {
		id := strconv.Itoa(r.IntN(ids))
		switch slot, d, ok := tab.lookup(id, packs); {
		case ok && r.IntN(2) == 0: // removed
			tab.removeAt(slot, packs)
			packs[d] = packed.Entry{}
			delete(want, id)
		default: // added, or replaced at a new ordinal
			nd := uint32(len(packs))
			packs = append(packs, packed.Pack(&mcpdir.Entry{ID: id}))
			if ok {
				packs[d] = packed.Entry{}
				tab.slots[slot] = nd + 1
			} else {
				tab.add(nd, packs)
			}
			want[id] = nd
		}
		if step%97 == 0 {
			check(step)
		}
	}
	check(-1)
	// Renumbered, as compaction does.
	var live []packed.Entry
	for _, p := range packs {
		if p.Valid() {
			want[p.ID()] = uint32(len(live))
			live = append(live, p)
		}
	}
	packs = live
	tab.reset(len(packs), packs)
	check(-2)
}

// A cluster that wraps around the table's end: removing its head moves
// its tail, at the table's start, back to the end.
func TestIDTableWraps(t *testing.T) {
	tab := idTable{slots: make([]uint32, 64)}
	var ids []string
	for i := 0; len(ids) < 3; i++ {
		if id := strconv.Itoa(i); tab.home(id) == 63 {
			ids = append(ids, id)
		}
	}
	var packs []packed.Entry
	for d, id := range ids {
		packs = append(packs, packed.Pack(&mcpdir.Entry{ID: id}))
		tab.add(uint32(d), packs)
	}
	if tab.slots[63] != 1 || tab.slots[0] != 2 || tab.slots[1] != 3 {
		t.Fatalf("slots 63, 0, 1: %d %d %d", tab.slots[63], tab.slots[0], tab.slots[1])
	}
	slot, _, _ := tab.lookup(ids[0], packs)
	tab.removeAt(slot, packs)
	for d, id := range ids[1:] {
		if got, ok := tab.get(id, packs); !ok || got != uint32(d+1) {
			t.Fatalf("%s: %d, %v after its cluster's head went", id, got, ok)
		}
	}
}
