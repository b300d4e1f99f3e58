package registryapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/registryapi"
	"github.com/mcpdir/mcpdir/search"
)

// unpacking is a directory whose Entries yields a new entry each time, as
// a packed index does, and remembers them; Get misses the ids in gone.
type unpacking struct {
	*search.Index
	yielded []weak.Pointer[mcpdir.Entry]
	gone    map[string]bool
}

func (d *unpacking) Entries(yield func(*mcpdir.Entry)) {
	d.Index.Entries(func(e *mcpdir.Entry) {
		c := *e
		d.yielded = append(d.yielded, weak.Make(&c))
		yield(&c)
	})
}

func (d *unpacking) Get(id string) (*mcpdir.Entry, bool) {
	if d.gone[id] {
		return nil, false
	}
	return d.Index.Get(id)
}

func unpackingAPI(t *testing.T) (*unpacking, *registryapi.API, *httptest.Server) {
	t.Helper()
	x := search.New()
	e := entry("@acme/deploy", "Deploys", nil)
	x.Upsert(e, entry("@acme/build", "Builds", nil), entry("@acme/test", "Tests", nil))
	name := registryapi.ServedName(e)
	var h history
	for _, v := range []string{"1.2.3", "1.0.0"} {
		h = append(h, &mcpdir.ServerVersion{Name: name, Version: v, EntryKey: e.NaturalKey(), Status: mcpdir.StatusActive,
			Server: []byte(`{"name":"` + name + `","version":"` + v + `","description":"Deploys"}`), PublishedAt: epoch, UpdatedAt: epoch})
	}
	d := &unpacking{Index: x, gone: map[string]bool{}}
	api := &registryapi.API{Dir: d, History: h, MaxAge: time.Minute}
	mux := http.NewServeMux()
	api.Routes(mux, nil)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return d, api, srv
}

// TestViewKeepsNoEntry lists a directory whose entries are unpacked copies:
// the view the list pages keeps none of them (at 100 times the corpus they
// would be a decoded copy of the directory), and reads those it serves.
func TestViewKeepsNoEntry(t *testing.T) {
	d, api, srv := unpackingAPI(t)
	var l list
	get(t, srv.URL+"/v0.1/servers", http.StatusOK, &l)
	if len(l.Servers) != 4 || l.Metadata.Count != 4 {
		t.Fatalf("listed %v (count %d), want 4 rows", names(l), l.Metadata.Count)
	}
	if len(d.yielded) != 3 {
		t.Fatalf("the view was made of %d entries, want 3", len(d.yielded))
	}
	runtime.GC()
	for i, w := range d.yielded {
		if w.Value() != nil {
			t.Fatalf("entry %d the view was made of is still held", i)
		}
	}
	runtime.KeepAlive(api)
}

// TestEntryGoneSinceTheView serves a view whose entry the directory no
// longer has: its row is left out, as once the view is made again, and the
// history's older version is still served.
func TestEntryGoneSinceTheView(t *testing.T) {
	d, _, srv := unpackingAPI(t)
	var l list
	get(t, srv.URL+"/v0.1/servers", http.StatusOK, &l)
	deploy := entry("@acme/deploy", "Deploys", nil)
	name := url.PathEscape(registryapi.ServedName(deploy))
	d.gone[deploy.ID], d.gone[entry("@acme/build", "Builds", nil).ID] = true, true
	get(t, srv.URL+"/v0.1/servers", http.StatusOK, &l)
	if len(l.Servers) != 2 || l.Metadata.Count != 2 {
		t.Fatalf("listed %v (count %d), want deploy's 1.0.0 and test", names(l), l.Metadata.Count)
	}
	get(t, srv.URL+"/v0.1/servers/"+name+"/versions", http.StatusOK, &l)
	if len(l.Servers) != 1 || l.Servers[0].Server["version"] != "1.0.0" {
		t.Fatalf("versions: %v", l.Servers)
	}
	get(t, srv.URL+"/v0.1/servers/"+name+"/versions/1.2.3", http.StatusNotFound, nil)
	get(t, srv.URL+"/v0.1/servers/"+url.PathEscape(registryapi.ServedName(entry("@acme/build", "Builds", nil)))+"/versions", http.StatusNotFound, nil)
}
