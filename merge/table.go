package merge

// recordTable is a set of records found by a key each holds (its id, its
// first link key): open addressing with linear probing over pointers, the
// key read from the record itself, as search's idTable reads an id from
// its entry's pack. A slot costs 8 bytes, 11 to 21 a record, where a map
// cost 26 to 40 (issue 36). No two records in it have one key.
type recordTable[K comparable] struct {
	slots []*record // nil is empty
	n     int
	key   func(*record) K
	hash  func(K) uint64
}

func (t *recordTable[K]) home(k K) int { return int(t.hash(k) & uint64(len(t.slots)-1)) }

// lookup returns the record of key k and its slot, or nil and the empty
// slot where it would go.
func (t *recordTable[K]) lookup(k K) (int, *record) {
	if len(t.slots) == 0 {
		return 0, nil
	}
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		if r := t.slots[i]; r == nil || t.key(r) == k {
			return i, r
		}
	}
}

// get is the record of key k, or nil.
func (t *recordTable[K]) get(k K) *record {
	_, r := t.lookup(k)
	return r
}

// add adds r, whose key no record in the table has.
func (t *recordTable[K]) add(r *record) {
	t.slots = t.grown(1)
	i, _ := t.lookup(t.key(r))
	t.slots[i] = r
	t.n++
}

// grown are the table's slots grown, if need be, to take n records more
// (at most three quarters full): new ones, the old left as they were for
// lookups meanwhile.
func (t *recordTable[K]) grown(n int) []*record {
	size := max(64, len(t.slots))
	for (t.n+n)*4 > size*3 {
		size *= 2
	}
	if size == len(t.slots) {
		return t.slots
	}
	slots := make([]*record, size)
	mask := uint64(size - 1)
	for _, r := range t.slots {
		if r != nil {
			i := t.hash(t.key(r)) & mask
			for slots[i] != nil {
				i = (i + 1) & mask
			}
			slots[i] = r
		}
	}
	return slots
}

// removeAt empties slot, shifting back the records after it that would
// no longer be found.
func (t *recordTable[K]) removeAt(slot int) {
	mask := len(t.slots) - 1
	t.slots[slot] = nil
	t.n--
	for i := (slot + 1) & mask; t.slots[i] != nil; i = (i + 1) & mask {
		h := t.home(t.key(t.slots[i]))
		// The record at i stays unless the empty slot lies on its path
		// from home (cyclically, home ≤ slot < i).
		if (i > slot && (h <= slot || h > i)) || (i < slot && h <= slot && h > i) {
			t.slots[slot], t.slots[i] = t.slots[i], nil
			slot = i
		}
	}
}

// all yields the records, in no particular order; the table is not to
// change meanwhile.
func (t *recordTable[K]) all(yield func(*record) bool) {
	for _, r := range t.slots {
		if r != nil && !yield(r) {
			return
		}
	}
}
