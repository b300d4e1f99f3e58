package registryapi_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
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
	srv := serve(t, api)
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

// TestNamesInOrder lists servers whose names share a namespace's start,
// held by the view as a namespace and a rest: the list pages them in the
// names' own order, each is found by name, and a cursor of a name not
// served resumes after it.
func TestNamesInOrder(t *testing.T) {
	var es []*mcpdir.Entry
	for _, n := range []string{"com.npmjs/b", "com.npmjs.x/a", "com.npmjs-x/a", "com.npmjs0/a", "co.m/z", "com.npmjs/a-b",
		"com.npmjs/a.b", "com.npmjs/a", "com.npmjs/a/b"} {
		es = append(es, entry(n, "A tool", func(e *mcpdir.Entry) { e.Source = mcpdir.SourceRegistry }))
	}
	es = append(es, entry("@acme/deploy", "Deploys", nil))
	x := search.New()
	x.Upsert(es...)
	h := history{{Name: "noslash", Version: "1.0.0", EntryKey: "registry:noslash", Status: mcpdir.StatusDeleted, UpdatedAt: epoch}}
	srv := serve(t, &registryapi.API{Dir: x, History: h})

	var want []string
	for _, e := range es {
		want = append(want, registryapi.ServedName(e))
	}
	want = append(want, "noslash")
	slices.Sort(want)
	var got []string
	for _, l := range allPages(t, srv.URL+"/v0.1/servers?limit=2&include_deleted=true") {
		got = append(got, names(l)...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed\n%q\nwant\n%q", got, want)
	}
	for _, n := range want {
		var l list
		get(t, srv.URL+"/v0.1/servers/"+url.PathEscape(n)+"/versions?include_deleted=true", http.StatusOK, &l)
		if g := names(l); len(g) != 1 || g[0] != n {
			t.Errorf("versions of %s: %q", n, g)
		}
	}
	for _, n := range []string{"com.npmjs/a-", "com.npmjs/", "com.npmjs", "com.npmjs.", "com.npmjs/a/a", "co", "com.npmjs/zz", "nosl", "zz", ""} {
		var l list
		c := base64.RawURLEncoding.EncodeToString([]byte("n:" + n + "\x00"))
		get(t, srv.URL+"/v0.1/servers?limit=1&include_deleted=true&cursor="+c, http.StatusOK, &l)
		i, _ := slices.BinarySearch(want, n+"\x00")
		if g := names(l); i < len(want) && !slices.Equal(g, want[i:i+1]) || i == len(want) && len(g) != 0 {
			t.Errorf("after %q: %q, want %q", n, g, want[i:min(i+1, len(want))])
		}
	}
	for _, n := range []string{"com.npmjs/a-", "com.npmjs", "com.npmjs/a/", "co.m/zz", "nosla"} {
		get(t, srv.URL+"/v0.1/servers/"+url.PathEscape(n)+"/versions?include_deleted=true", http.StatusNotFound, nil)
	}
}

// TestOneNameDerivedThrice serves three entries that derive one name: the
// registry's keeps it, the other two each take their id's start, and a
// search finds each under its own.
func TestOneNameDerivedThrice(t *testing.T) {
	const name = "io.github.acme/tool"
	reg := entry(name, "A tool", func(e *mcpdir.Entry) { e.Source = mcpdir.SourceRegistry })
	a := entry(name, "A tool", func(e *mcpdir.Entry) { e.WebsiteURL = "https://a.example/tool" })
	b := entry(name, "A tool", func(e *mcpdir.Entry) { e.WebsiteURL = "https://b.example/tool" })
	_, srv := directory(t, reg, a, b)
	dedupe := func(e *mcpdir.Entry) string { return name + "-" + strings.ReplaceAll(e.ID, "-", "")[:8] }
	want := []string{name, dedupe(a), dedupe(b)}
	slices.Sort(want)
	var l list
	get(t, srv.URL+"/v0.1/servers", http.StatusOK, &l)
	if g := names(l); !slices.Equal(g, want) {
		t.Fatalf("listed %q, want %q", g, want)
	}
	get(t, srv.URL+"/v0.1/servers?search=tool", http.StatusOK, &l)
	byID := map[string]string{}
	for _, s := range l.Servers {
		var dm struct{ ID string }
		json.Unmarshal(s.Meta[registryapi.DirectoryMeta], &dm)
		byID[dm.ID] = s.Server["name"].(string)
	}
	if byID[reg.ID] != name || byID[a.ID] != dedupe(a) || byID[b.ID] != dedupe(b) {
		t.Fatalf("search found %v", byID)
	}
}

// TestUpdatedSinceExactly filters on times the view keeps as Unix
// nanoseconds, and on those that have none (the zero time, years out of
// int64 nanoseconds' range): a row is kept when its time is after since,
// to the nanosecond, in any zone.
func TestUpdatedSinceExactly(t *testing.T) {
	times := []time.Time{{}, time.Date(1500, 1, 1, 0, 0, 0, 7, time.UTC), epoch.Add(time.Nanosecond),
		epoch.In(time.FixedZone("X", 3600)), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}
	var es []*mcpdir.Entry
	for i, at := range times {
		es = append(es, entry(fmt.Sprintf("tool-%d", i), "A tool", func(e *mcpdir.Entry) { e.CreatedAt, e.UpdatedAt = at, at }))
	}
	_, srv := directory(t, es...)
	for _, since := range []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(1500, 1, 1, 0, 0, 0, 6, time.UTC), time.Date(1500, 1, 1, 0, 0, 0, 7, time.UTC), time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC),
		epoch.Add(-time.Nanosecond), epoch, epoch.Add(time.Nanosecond), time.Date(2299, 1, 1, 0, 0, 0, 0, time.FixedZone("Y", -7200)),
		time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)} {
		var want []string
		for i, at := range times {
			if at.After(since) {
				want = append(want, registryapi.ServedName(es[i]))
			}
		}
		slices.Sort(want)
		var l list
		get(t, srv.URL+"/v0.1/servers?updated_since="+url.QueryEscape(since.Format(time.RFC3339Nano)), http.StatusOK, &l)
		if g := names(l); !slices.Equal(g, want) {
			t.Errorf("updated_since=%s: %q, want %q", since.Format(time.RFC3339Nano), g, want)
		}
	}
}

// TestEveryVersionInItsPlace lists servers with histories of several
// lengths among servers without one, and a server whose versions are all
// deleted: the view, made in its own rows (each server spread into its
// versions from the end back), serves every version once, in name order,
// each server's newest first.
func TestEveryVersionInItsPlace(t *testing.T) {
	x := search.New()
	var h history
	servers := map[string][]string{} // name: versions, newest first
	for i := range 40 {
		e := entry(fmt.Sprintf("tool-%02d", i*17%40), "A tool", nil) // not added in name order
		x.Upsert(e)
		name := registryapi.ServedName(e)
		versions := []string{"1.2.3"}
		if i%3 == 0 {
			for j := range i % 5 {
				versions = append(versions, fmt.Sprintf("1.0.%d", 4-j))
			}
		}
		servers[name] = versions
		for _, v := range versions {
			if len(versions) > 1 {
				h = append(h, &mcpdir.ServerVersion{Name: name, Version: v, EntryKey: e.NaturalKey(), Status: mcpdir.StatusActive,
					Server: []byte(`{"name":"` + name + `","version":"` + v + `","description":"A tool"}`), PublishedAt: epoch, UpdatedAt: epoch})
			}
		}
	}
	for _, v := range []string{"2.0.0", "1.0.0"} {
		h = append(h, &mcpdir.ServerVersion{Name: "com.npmjs/tool-20a", Version: v, EntryKey: "registry:com.npmjs/tool-20a",
			Status: mcpdir.StatusDeleted, Server: []byte(`{"name":"com.npmjs/tool-20a","version":"` + v + `","description":"Gone"}`),
			PublishedAt: epoch, UpdatedAt: epoch})
	}
	servers["com.npmjs/tool-20a"] = []string{"2.0.0", "1.0.0"}
	var want []string
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		for _, v := range servers[name] {
			want = append(want, name+"@"+v)
		}
	}
	srv := serve(t, &registryapi.API{Dir: x, History: h, MaxAge: time.Minute})
	for _, limit := range []string{"3", "100"} {
		var got []string
		for _, l := range allPages(t, srv.URL+"/v0.1/servers?include_deleted=true&limit="+limit) {
			for _, s := range l.Servers {
				got = append(got, s.Server["name"].(string)+"@"+s.Server["version"].(string))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %s: listed\n%q\nwant\n%q", limit, got, want)
		}
	}
}

// TestManyNamesDerivedTwice lists 200 registry servers, every seventh's
// name derived by a second entry too, and servers whose every version is
// deleted between them: each is listed once, in name order, the second
// entries under their deduplicated names (merged in among the others, not
// sorted again).
func TestManyNamesDerivedTwice(t *testing.T) {
	var es []*mcpdir.Entry
	var h history
	var want []string
	for i := range 200 {
		name := fmt.Sprintf("io.github.acme/tool-%03d", (i*37)%200)
		es = append(es, entry(name, "A tool", func(e *mcpdir.Entry) { e.Source = mcpdir.SourceRegistry }))
		want = append(want, name)
		if i%7 == 0 {
			e := entry(name, "A tool", func(e *mcpdir.Entry) { e.WebsiteURL = "https://other.example/" + name })
			es = append(es, e)
			want = append(want, name+"-"+strings.ReplaceAll(e.ID, "-", "")[:8])
		}
		if i%11 == 0 {
			gone := name + "a"
			h = append(h, &mcpdir.ServerVersion{Name: gone, Version: "1.0.0", EntryKey: "registry:" + gone, Status: mcpdir.StatusDeleted,
				Server: []byte(`{"name":"` + gone + `","version":"1.0.0","description":"Gone"}`), PublishedAt: epoch, UpdatedAt: epoch})
			want = append(want, gone)
		}
	}
	slices.Sort(want)
	x := search.New()
	x.Upsert(es...)
	srv := serve(t, &registryapi.API{Dir: x, History: h})
	var got []string
	for _, l := range allPages(t, srv.URL+"/v0.1/servers?include_deleted=true&limit=37") {
		got = append(got, names(l)...)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("listed\n%q\nwant\n%q", got, want)
	}
}
