package wire

import (
	"fmt"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// TestLookupEncodesEachEntryOnce checks that Lookup gives the hits'
// encodings in order, encoding an entry the first time it is asked for and
// never again, and that AppendJoined joins the same encodings.
func TestLookupEncodesEachEntryOnce(t *testing.T) {
	encoded := map[string]int{}
	c := NewEncodingCache(func(e *mcpdir.Entry) []byte {
		encoded[e.Name]++
		return []byte(fmt.Sprintf("<%s>", e.Name))
	})
	a, b, d := &mcpdir.Entry{Name: "a"}, &mcpdir.Entry{Name: "b"}, &mcpdir.Entry{Name: "d"}
	hits := func(es ...*mcpdir.Entry) []mcpdir.Hit {
		hs := make([]mcpdir.Hit, len(es))
		for i, e := range es {
			hs[i] = mcpdir.Hit{Entry: e}
		}
		return hs
	}
	for _, round := range [][]*mcpdir.Entry{{a, b}, {b, d, a}, {d, a, b}} {
		var got string
		for _, enc := range c.Lookup(nil, hits(round...)) {
			got += string(enc)
		}
		want := ""
		for _, e := range round {
			want += "<" + e.Name + ">"
		}
		if got != want {
			t.Fatalf("Lookup: %s, want %s", got, want)
		}
	}
	for name, n := range encoded {
		if n != 1 {
			t.Errorf("%s encoded %d times, want once", name, n)
		}
	}
	if got := string(c.AppendJoined([]byte("["), hits(d, b), func(dst []byte, h mcpdir.Hit) []byte { return append(dst, '!') })); got != "[<d>!,<b>!" {
		t.Errorf("AppendJoined: %s", got)
	}
}
