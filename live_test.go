package mcpdir

import (
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
