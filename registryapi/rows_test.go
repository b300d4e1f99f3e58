package registryapi

import (
	"context"
	"testing"
	"unsafe"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search"
)

// TestRowIsSmall guards a row's size and that its strings are the packed
// index's own memory, not copies: at 100 times the packages corpus a view
// has 2.8 million rows (BenchmarkView measures them).
func TestRowIsSmall(t *testing.T) {
	if s := unsafe.Sizeof(row{}); s > 56 {
		t.Errorf("a row is %d bytes, want at most 56", s)
	}
	e := &mcpdir.Entry{Name: "tool-x", Brief: "A tool", WebsiteURL: "https://www.npmjs.com/package/tool-x",
		Packages: []mcpdir.Package{{RegistryType: "npm", Identifier: "tool-x"}}}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	x := search.New()
	x.Upsert(e)
	v, err := (&API{Dir: x}).current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := x.Get(e.ID)
	r := &v.rows[0]
	if v.name(r) != "com.npmjs/tool-x" || unsafe.StringData(r.rest) != unsafe.StringData(got.Name) {
		t.Errorf("the row's name %q is not the entry's %q", v.name(r), got.Name)
	}
	if unsafe.StringData(r.id) != unsafe.StringData(got.ID) {
		t.Error("the row's id is a copy")
	}
}
