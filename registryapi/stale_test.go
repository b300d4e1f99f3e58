package registryapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/search"
)

// history is a version history in memory.
type history []*mcpdir.ServerVersion

func (h history) VersionHeads(_ context.Context, fn func(*mcpdir.ServerVersion) error) error {
	for _, v := range h {
		c := *v
		c.Server = nil
		if err := fn(&c); err != nil {
			return err
		}
	}
	return nil
}

func (h history) ServerVersions(_ context.Context, names []string) ([]*mcpdir.ServerVersion, error) {
	return h, nil
}

// TestEntryBehindItsHistory serves a server whose entry is at an older
// version than its history's latest: for a moment after a publish, until
// the directory reads the new entry, or for good when an admin edited the
// entry. Each version is served once, the entry at its own version (the
// federation test once saw a version "served twice").
func TestEntryBehindItsHistory(t *testing.T) {
	e := entry("@acme/deploy", "Deploys", nil) // at 1.2.3
	x := search.New()
	x.Upsert(e)
	name := registryapi.ServedName(e)
	var h history
	for _, v := range []string{"1.2.3", "1.3.0", "1.0.0"} {
		h = append(h, &mcpdir.ServerVersion{Name: name, Version: v, EntryKey: e.NaturalKey(), Status: mcpdir.StatusActive,
			Server: []byte(`{"name":"` + name + `","version":"` + v + `","description":"Deploys"}`), PublishedAt: epoch, UpdatedAt: epoch})
	}
	srv := serve(t, &registryapi.API{Dir: x, History: h, MaxAge: time.Minute})
	for _, limit := range []string{"1", "2", "30"} {
		seen := map[string]int{}
		cursor := ""
		for range 10 {
			var l list
			get(t, srv.URL+"/v0.1/servers?limit="+limit+"&cursor="+cursor, http.StatusOK, &l)
			for _, s := range l.Servers {
				seen[s.Server["name"].(string)+"@"+s.Server["version"].(string)]++
			}
			if cursor = l.Metadata.NextCursor; cursor == "" {
				break
			}
		}
		for _, v := range []string{"1.3.0", "1.2.3", "1.0.0"} {
			if n := seen[name+"@"+v]; n != 1 {
				t.Errorf("limit %s: %s@%s served %d times: %v", limit, name, v, n, seen)
			}
		}
	}
}

// TestEntryBehindItsHistoryLatest: only the history's latest says it is.
func TestEntryBehindItsHistoryLatest(t *testing.T) {
	e := entry("@acme/deploy", "Deploys", nil) // at 1.2.3
	x := search.New()
	x.Upsert(e)
	name := registryapi.ServedName(e)
	var h history
	for _, v := range []string{"1.2.3", "1.3.0"} {
		h = append(h, &mcpdir.ServerVersion{Name: name, Version: v, EntryKey: e.NaturalKey(), Status: mcpdir.StatusActive,
			Server: []byte(`{"name":"` + name + `","version":"` + v + `","description":"Deploys"}`), PublishedAt: epoch, UpdatedAt: epoch})
	}
	srv := serve(t, &registryapi.API{Dir: x, History: h, MaxAge: time.Minute})
	var l list
	get(t, srv.URL+"/v0.1/servers?version=latest", http.StatusOK, &l)
	if len(l.Servers) != 1 || l.Servers[0].Server["version"] != "1.3.0" {
		t.Fatalf("version=latest: %v", l.Servers)
	}
	get(t, srv.URL+"/v0.1/servers", http.StatusOK, &l)
	for _, s := range l.Servers {
		want := s.Server["version"] == "1.3.0"
		if got := strings.Contains(string(s.Meta[registryapi.OfficialMeta]), `"isLatest":true`); got != want {
			t.Errorf("%v: %s", s.Server["version"], s.Meta[registryapi.OfficialMeta])
		}
	}
}
