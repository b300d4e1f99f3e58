package merge

import (
	"testing"
	"unsafe"

	"github.com/mcpdir/mcpdir"
)

// A record's id is kept in its current pack's memory: written again
// with other fields, it lets the old pack go (and keeps none of the
// store's strings).
func TestRecordIDsLiveInTheirPack(t *testing.T) {
	x := NewIndex(discard{}, DefaultRules())
	e := &mcpdir.Entry{Name: "weather-mcp", Brief: "Weather", WebsiteURL: "https://example.com/weather"}
	e.ID = mcpdir.EntryID(e.NaturalKey())
	x.Upsert(e)
	changed := *e
	changed.Brief = "Weather forecasts"
	x.Upsert(&changed)
	r := x.records[e.ID]
	if r == nil || unsafe.StringData(r.id) != unsafe.StringData(r.p.ID()) {
		t.Fatal("the record's id is not its current pack's")
	}
	for k := range x.records {
		if unsafe.StringData(k) != unsafe.StringData(r.id) {
			t.Fatal("the records' key is not the record's id")
		}
	}
}
