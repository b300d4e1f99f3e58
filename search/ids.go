package search

import (
	"hash/maphash"

	"github.com/mcpdir/mcpdir/packed"
)

// idTable finds an entry's ordinal by its id: open addressing with linear
// probing over ordinals, the id itself read from the entry's pack. It
// takes 5 to 11 bytes an entry, where a map[string]uint32 took 58 at 10x
// (issue 36). Written under the index's write lock, read under its read
// lock.
type idTable struct {
	slots []uint32 // an ordinal + 1; 0 is empty
	n     int
}

var idSeed = maphash.MakeSeed()

func (t *idTable) home(id string) int {
	return int(maphash.String(idSeed, id) & uint64(len(t.slots)-1))
}

// lookup returns the slot and ordinal of id, whose entry packs holds.
func (t *idTable) lookup(id string, packs []packed.Entry) (slot int, d uint32, ok bool) {
	if len(t.slots) == 0 {
		return 0, 0, false
	}
	for i := t.home(id); ; i = (i + 1) & (len(t.slots) - 1) {
		s := t.slots[i]
		if s == 0 {
			return i, 0, false
		}
		if packs[s-1].ID() == id {
			return i, s - 1, true
		}
	}
}

// get returns the ordinal of id.
func (t *idTable) get(id string, packs []packed.Entry) (uint32, bool) {
	_, d, ok := t.lookup(id, packs)
	return d, ok
}

// add adds ordinal d, whose id is in no slot; packs holds its entry.
func (t *idTable) add(d uint32, packs []packed.Entry) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.rebuild(max(64, 2*len(t.slots)), packs)
	}
	slot, _, _ := t.lookup(packs[d].ID(), packs)
	t.slots[slot] = d + 1
	t.n++
}

// rebuild makes the table size slots of the ordinals it holds.
func (t *idTable) rebuild(size int, packs []packed.Entry) {
	old := t.slots
	t.slots = make([]uint32, size)
	for _, s := range old {
		if s != 0 {
			i := t.home(packs[s-1].ID())
			for t.slots[i] != 0 {
				i = (i + 1) & (size - 1)
			}
			t.slots[i] = s
		}
	}
}

// removeAt empties slot, shifting back the ordinals after it that would
// no longer be found; packs holds their entries.
func (t *idTable) removeAt(slot int, packs []packed.Entry) {
	mask := len(t.slots) - 1
	t.slots[slot] = 0
	t.n--
	for i := (slot + 1) & mask; t.slots[i] != 0; i = (i + 1) & mask {
		h := t.home(packs[t.slots[i]-1].ID())
		// The ordinal at i stays unless the empty slot lies on its path
		// from home (cyclically, home ≤ slot < i).
		if (i > slot && (h <= slot || h > i)) || (i < slot && h <= slot && h > i) {
			t.slots[slot], t.slots[i] = t.slots[i], 0
			slot = i
		}
	}
}

// reset makes the table hold ordinals 0 to n-1, whose entries packs holds.
func (t *idTable) reset(n int, packs []packed.Entry) {
	size := 64
	for size*3 < n*4 {
		size *= 2
	}
	t.slots = make([]uint32, size)
	t.n = 0
	for d := range n {
		slot, _, _ := t.lookup(packs[d].ID(), packs)
		t.slots[slot] = uint32(d) + 1
		t.n++
	}
}
