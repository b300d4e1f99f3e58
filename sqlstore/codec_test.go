package sqlstore

import (
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpdir/mcpdir"
)

// A check recorded before details were kept reads back without them; one
// recorded with them, with them.
func TestLiveDetailsRoundTrip(t *testing.T) {
	old, err := DecodeLiveCheck("https://e.com/mcp", mcpdir.LiveUp, 1, 2, "2025-06-18", []byte(`[]`), nil)
	if err != nil || old.ProtocolVersions != nil || old.Auth != nil {
		t.Fatalf("%+v %v", old, err)
	}
	c := &mcpdir.LiveCheck{URL: "https://e.com/mcp", Status: mcpdir.LiveAuthRequired, CheckedAt: time.Unix(0, 1).UTC(), Latency: 2,
		ProtocolVersions: []string{"2026-07-28"}, Auth: &mcpdir.LiveAuth{AuthorizationServers: []string{"https://as.example"}, ClientIDMetadataDocuments: true}}
	b, err := EncodeLiveDetails(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeLiveCheck(c.URL, c.Status, 1, 2, "", nil, b)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("%+v (%s), want %+v: %v", got, b, c, err)
	}
	if _, err := DecodeLiveCheck(c.URL, c.Status, 1, 2, "", nil, []byte("{")); err == nil {
		t.Fatal("broken details read back")
	}
}

// A check's history goes through the stores' encoding.
func TestLiveHistoryRoundTrip(t *testing.T) {
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var prev *mcpdir.LiveCheck
	for hour := range 24 * 40 {
		c := &mcpdir.LiveCheck{URL: "https://e.com/mcp", Status: mcpdir.LiveUp, CheckedAt: start.Add(time.Duration(hour) * time.Hour),
			Latency: time.Duration(100+hour%24) * time.Millisecond}
		c.Follow(prev)
		prev = c
	}
	// It goes through the stores' encoding.
	details, _ := EncodeLiveDetails(prev)
	back, err := DecodeLiveCheck(prev.URL, prev.Status, prev.CheckedAt.UnixNano(), int64(prev.Latency), "", nil, details)
	if err != nil || len(back.History) != mcpdir.HistoryDays || !reflect.DeepEqual(back.History, prev.History) {
		t.Fatalf("decoded: %v %d", err, len(back.History))
	}
}

// A decoded record is the record that was encoded, and the strings it
// repeats share one copy (what a replica keeps of every record).
func TestDecodeDocSharesRepeatedStrings(t *testing.T) {
	in := &mcpdir.Entry{Name: "weather-mcp", Version: "1.2.0", Brief: "Forecasts.", Source: mcpdir.SourceImport,
		Transports: []string{mcpdir.TransportStdio},
		Packages:   []mcpdir.Package{{RegistryType: "npm", Identifier: "weather-mcp", Version: "1.2.0", Transport: "stdio"}}}
	doc, err := EncodeDoc(in)
	if err != nil {
		t.Fatal(err)
	}
	a, err := DecodeDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, in) {
		t.Fatalf("decoded %+v, want %+v", a, in)
	}
	b, _ := DecodeDoc(doc)
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	p := a.Packages[0]
	if !same(p.Identifier, a.Name) || !same(p.Version, a.Version) {
		t.Error("the package's name and version are copies of the entry's")
	}
	if !same(a.Source, b.Source) || !same(p.RegistryType, b.Packages[0].RegistryType) || !same(a.Transports[0], b.Transports[0]) {
		t.Error("two records spell their source, registry or transport in copies of their own")
	}
}
