package mcpdir

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCleanProtocolVersions(t *testing.T) {
	got := CleanProtocolVersions([]string{"2025-03-26", "2026-07-28", "", "2025-03-26", "2024-11-05\x1b[31m", strings.Repeat("9", 100)})
	if want := []string{strings.Repeat("9", 32), "2026-07-28", "2025-03-26", "2024-11-05 [31m"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	if got := CleanProtocolVersions(make([]string, 1000)); got != nil {
		t.Errorf("empty versions: %q", got)
	}
	var many []string
	for i := range 100 {
		many = append(many, time.Date(2000+i, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
	}
	if got := CleanProtocolVersions(many); len(got) != 16 || got[0] != "2099-01-01" {
		t.Errorf("a hundred versions: %q", got)
	}
}

func TestCleanLiveAuth(t *testing.T) {
	var servers []string
	for i := range 20 {
		servers = append(servers, "https://as"+strings.Repeat("x", i)+".example")
	}
	a := CleanLiveAuth(&LiveAuth{ResourceMetadata: "https://e.com/prm\n" + strings.Repeat("a", 5000),
		AuthorizationServers: append([]string{"", servers[0]}, servers...), DynamicRegistration: true})
	if len(a.ResourceMetadata) != 2048 || strings.Contains(a.ResourceMetadata, "\n") || !a.DynamicRegistration || a.ClientIDMetadataDocuments {
		t.Errorf("%+v", a)
	}
	if !slices.Equal(a.AuthorizationServers, servers[:8]) {
		t.Errorf("servers %q", a.AuthorizationServers)
	}
	if CleanLiveAuth(nil) != nil {
		t.Error("nil is not nil")
	}
}

// A check recorded before details were kept reads back without them; one
// recorded with them, with them.
func TestLiveDetailsRoundTrip(t *testing.T) {
	old, err := DecodeLiveCheck("https://e.com/mcp", LiveUp, 1, 2, "2025-06-18", []byte(`[]`), nil)
	if err != nil || old.ProtocolVersions != nil || old.Auth != nil {
		t.Fatalf("%+v %v", old, err)
	}
	c := &LiveCheck{URL: "https://e.com/mcp", Status: LiveAuthRequired, CheckedAt: time.Unix(0, 1).UTC(), Latency: 2,
		ProtocolVersions: []string{"2026-07-28"}, Auth: &LiveAuth{AuthorizationServers: []string{"https://as.example"}, ClientIDMetadataDocuments: true}}
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
