package merge

import (
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/packed"
)

// A record's id is read from its current pack: written again with other
// fields, it lets the old pack go (and keeps none of the store's strings),
// and is found by its id all the same.
func TestRecordIDsLiveInTheirPack(t *testing.T) {
	x := NewIndex(discard{}, DefaultRules())
	e := &mcpdir.Entry{Name: "weather-mcp", Brief: "Weather", WebsiteURL: "https://example.com/weather"}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	x.Upsert(e)
	changed := *e
	changed.Brief = "Weather forecasts"
	x.Upsert(&changed)
	r := x.records.get(e.ID)
	if r == nil || r.p != packed.Pack(&changed) || r.id() != e.ID {
		t.Fatal("the record found by its id is not its current pack's")
	}
}
