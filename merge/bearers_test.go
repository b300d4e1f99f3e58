package merge

import (
	"slices"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// A bearer set holds one member inline and more in a map, and is the set
// a map of them would be through any adds and removes.
func TestBearerSet(t *testing.T) {
	var b bearerSet
	want := map[string]bool{}
	records := map[string]*record{}
	rec := func(id string) *record {
		if records[id] == nil {
			records[id] = &record{p: packed.Pack(&mcpdir.Entry{ID: id})}
		}
		return records[id]
	}
	check := func(step string) {
		t.Helper()
		var got []string
		for r := range b.all {
			got = append(got, r.p.ID())
		}
		slices.Sort(got)
		var w []string
		for id := range want {
			w = append(w, id)
		}
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Fatalf("%s: %v, want %v", step, got, w)
		}
	}
	for i, op := range []struct {
		add bool
		id  string
	}{{true, "a"}, {true, "a"}, {true, "b"}, {true, "c"}, {false, "b"}, {false, "a"}, {false, "x"}, {true, "d"}, {false, "c"}, {false, "d"}, {true, ""}, {false, ""}} {
		if op.add {
			b.add(rec(op.id))
			want[op.id] = true
		} else {
			empty := b.remove(rec(op.id))
			delete(want, op.id)
			if empty != (len(want) == 0) {
				t.Fatalf("step %d: remove %q reports empty %v with %d left", i, op.id, empty, len(want))
			}
		}
		check(op.id)
	}
}
