package main

import (
	"slices"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// TestCredit checks that a judged record is credited once a query: a
// merged hit as its best judged record, a second record of a server with
// what its server has left, and the ceiling without the grade two judged
// records of one server cannot both get.
func TestCredit(t *testing.T) {
	rec := func(id, url string) *mcpdir.Entry { return &mcpdir.Entry{ID: id, Name: id, WebsiteURL: url} }
	a1, a2, b := rec("a1", "A1"), rec("a2", "A2"), rec("b", "B")
	d := newDirectory([]merge.Group{{ID: "a1", Members: []*mcpdir.Entry{a1, a2}}, {ID: "b", Members: []*mcpdir.Entry{b}}})
	q := releval.Query{QID: "q1", Judgments: map[string]int{"A1": 2, "A2": 1, "B": 1}}
	hits := func(es ...*mcpdir.Entry) []mcpdir.Hit {
		var hs []mcpdir.Hit
		for _, e := range es {
			hs = append(hs, mcpdir.Hit{Entry: e})
		}
		return hs
	}
	merged := merge.Merge(d.groups[0])
	for _, c := range []struct {
		name string
		hits []mcpdir.Hit
		want []string
	}{
		{"merged", hits(merged, b), []string{"A1", "B"}},
		{"merged twice", hits(merged, merged), []string{"A1", "A2"}},
		{"records", hits(a2, a1, b), []string{"A1", "A2", "B"}},
		{"records, one of a server judged", hits(b, b), []string{"B", ""}},
	} {
		if got := d.credit(q, c.hits); !slices.Equal(got, c.want) {
			t.Errorf("%s: credit = %q, want %q", c.name, got, c.want)
		}
	}
	if got, _ := d.ceiling(q); !slices.Equal(got, []string{"A1", "B"}) {
		t.Errorf("ceiling = %q, want [A1 B]", got)
	}
	if n, qs := d.sharedJudged([]releval.Query{q}); n != 1 || qs != 1 {
		t.Errorf("sharedJudged = %d records in %d queries, want 1 in 1", n, qs)
	}
}
