package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/accounts"
	"github.com/mcpdir/mcpdir/adminops"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/sqlite"
)

// fakeInsights answers what it holds, or its error.
type fakeInsights struct {
	in  mcpdir.Insights
	err error
}

func (f *fakeInsights) AddInsights(context.Context, mcpdir.InsightBatch) error { return nil }
func (f *fakeInsights) PruneInsights(context.Context, time.Time) error         { return nil }
func (f *fakeInsights) ReadInsights(context.Context, time.Time, int) (mcpdir.Insights, error) {
	return f.in, f.err
}

type noKeys struct{}

func (noKeys) KeysOf(string) []*mcpdir.APIKey                   { return nil }
func (noKeys) Used(context.Context, *mcpdir.APIKey) (int, bool) { return 0, false }
func (noKeys) Add(*mcpdir.APIKey)                               {}
func (noKeys) Revoke(context.Context, string) error             { return nil }

type adminFixture struct {
	pages    *Pages
	mux      *http.ServeMux
	db       *sqlite.DB
	insights *fakeInsights
	entries  []*mcpdir.Entry
	admin    string // the admin's session token
	ordinary string // an ordinary account's
}

var adminNow = time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)

func newAdminFixture(t *testing.T) *adminFixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &adminFixture{db: db, insights: &fakeInsights{in: mcpdir.Insights{
		Searches: []mcpdir.InsightBucket{
			{Hour: adminNow.Add(-2 * time.Hour), Door: mcpdir.DoorWeb, Searches: 12, Empty: 3},
			{Hour: adminNow.Add(-26 * time.Hour), Door: mcpdir.DoorMCP, Searches: 30, Empty: 1, Limited: 2},
			{Hour: adminNow.Add(-26 * time.Hour), Door: mcpdir.DoorREST, Searches: 5},
		},
		ZeroResultQueries: []mcpdir.QueryStat{{Query: "weather on mars", Count: 4}},
		TopQueries:        []mcpdir.QueryStat{{Query: "postgres", Count: 17}},
		Keys:              []mcpdir.KeyStat{{Key: "mcpd_ab12cd34", Requests: 40, Limited: 2}, {Key: "app:client-1", Requests: 9}},
	}}}
	for _, name := range []string{"alpha", "beta"} {
		e := &mcpdir.Entry{Name: name, Brief: "The " + name + " server", WebsiteURL: "https://example.com/" + name, Source: mcpdir.SourceImport}
		e.ID = mcpdir.EntryID(e.NaturalKey())
		f.entries = append(f.entries, e)
	}
	f.entries[1].ToolWarnings = []mcpdir.ToolWarning{{Kind: mcpdir.WarnHiddenInstruction, Severity: mcpdir.SeverityHigh, Tool: "t", Field: "description"}}
	if _, err := db.UpsertEntries(ctx, f.entries); err != nil {
		t.Fatal(err)
	}
	idx := search.New()
	idx.Upsert(f.entries...)
	p, err := New(idx, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	svc := accounts.New(db, memory.NewLimiter(nil))
	p.WithAccounts(&AccountConfig{Accounts: svc, Store: db, Keys: noKeys{}, PublicURL: "http://dir.example", ClientIP: func(*http.Request) string { return "192.0.2.1" }})
	p.WithAdmin(&AdminConfig{Ops: &adminops.Ops{Store: db}, Insights: f.insights, Audit: db,
		Entries: func(yield func(*mcpdir.Entry)) {
			for _, e := range f.entries {
				yield(e)
			}
		},
		SyncSources: []string{"https://registry.example"}, Now: func() time.Time { return adminNow }})
	f.pages, f.mux = p, http.NewServeMux()
	p.Routes(f.mux, func(h http.Handler) http.Handler { return h })
	if f.admin, _, err = svc.SignUp(ctx, "boss@example.com", "a long enough password"); err != nil {
		t.Fatal(err)
	}
	if f.ordinary, _, err = svc.SignUp(ctx, "ada@example.com", "a long enough password"); err != nil {
		t.Fatal(err)
	}
	if err := db.SetAccountRole(ctx, "boss@example.com", mcpdir.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	db.SetState(ctx, "registry-sync:https://registry.example", "2026-11-28T10:00:00Z")
	return f
}

func (f *adminFixture) do(t *testing.T, method, path, token string, form url.Values) *httptest.ResponseRecorder {
	t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, path, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if token != "" {
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: token})
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w
}

// Only a signed-in admin opens /admin: no one signed in is sent to log
// in, an ordinary account gets 403, and so do its actions.
func TestAdminPageAccess(t *testing.T) {
	f := newAdminFixture(t)
	if w := f.do(t, "GET", "/admin", "", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login?next=%2Fadmin" {
		t.Fatalf("anonymous: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := f.do(t, "GET", "/admin", f.ordinary, nil); w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "Searches of the last") {
		t.Fatalf("an ordinary account: %d", w.Code)
	}
	id := f.entries[0].ID
	if w := f.do(t, "POST", "/admin/entries/"+id+"/hide", f.ordinary, url.Values{}); w.Code != http.StatusForbidden {
		t.Fatalf("an ordinary account hides: %d", w.Code)
	}
	if got, _ := f.db.EntriesByID(context.Background(), []string{id}); len(got) != 1 {
		t.Fatal("an ordinary account hid an entry")
	}
	w := f.do(t, "GET", "/admin", f.admin, nil)
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("an admin: %d %q", w.Code, w.Header().Get("Cache-Control"))
	}
	// A disabled admin is no admin.
	f.db.DisableAccount(context.Background(), "boss@example.com", time.Now())
	if w := f.do(t, "GET", "/admin", f.admin, nil); w.Code != http.StatusSeeOther {
		t.Fatalf("a disabled admin: %d", w.Code)
	}
}

// The page's sections: the chart as SVG with its text and table, the
// queries as links to search them, keys by use, warnings, the sync's
// position, the entries with their actions.
func TestAdminPageSections(t *testing.T) {
	f := newAdminFixture(t)
	body := f.do(t, "GET", "/admin", f.admin, nil).Body.String()
	for _, want := range []string{
		`<svg role="img" aria-labelledby="chart-title chart-desc"`,
		`47 searches in the last 7 days, 4 of them answered nothing; the busiest day was 2026-11-28 with 35`,
		`<title>2026-11-28, MCP: 30 searches</title>`,
		`<th scope="row">2026-11-29</th><td>12</td>`,
		`<a href="/?q=weather%20on%20mars">weather on mars</a>`,
		`<a href="/?q=postgres">postgres</a>`,
		`<code>mcpd_ab12cd34</code></td><td>40</td><td>2</td>`,
		`<code>app:client-1</code>`,
		`Hidden instruction`,
		`2026-11-28T10:00:00Z`,
		`href="/admin/entries/` + f.entries[0].ID + `"`,
		`action="/admin/entries/` + f.entries[0].ID + `/hide"`,
		`action="/admin/entries/` + f.entries[0].ID + `/approve"`,
		`action="/admin/entries/` + f.entries[0].ID + `/split"`,
		`formaction="/admin/entries/` + f.entries[0].ID + `/join"`,
		`<a href="/admin">Admin</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(body, "style=") || strings.Contains(body, "<script>") {
		t.Error("inline style or script")
	}
	// The insight failing, the rest of the page is there.
	f.insights.err = errors.New("the store is down")
	w := f.do(t, "GET", "/admin", f.admin, nil)
	if b := w.Body.String(); w.Code != 200 || !strings.Contains(b, "The insight could not be read") || !strings.Contains(b, `id="entries"`) || strings.Contains(b, "<svg") {
		t.Errorf("the insight failing: %d", w.Code)
	}
	// A search of the entries.
	if b := f.do(t, "GET", "/admin?q=beta", f.admin, nil).Body.String(); !strings.Contains(b, "/admin/entries/"+f.entries[1].ID+"/hide") || strings.Contains(b, "/admin/entries/"+f.entries[0].ID+"/hide") {
		t.Error("the search of the entries")
	}
}

// readingIndex is an index that calls read before each Get.
type readingIndex struct {
	Index
	read func()
}

func (x readingIndex) Get(id string) (*mcpdir.Entry, bool) {
	x.read()
	return x.Index.Get(id)
}

// The entries' list holds none of the entries the walk gives (unpacked
// copies: at 100 times the corpus, a decoded copy of the directory) while
// it reads the page's again; the page walks them once.
func TestAdminPageKeepsNoEntry(t *testing.T) {
	f := newAdminFixture(t)
	var given []weak.Pointer[mcpdir.Entry]
	walks := 0
	f.pages.admin.Entries = func(yield func(*mcpdir.Entry)) {
		walks++
		for _, e := range f.entries {
			c := *e
			given = append(given, weak.Make(&c))
			yield(&c)
		}
	}
	reads := 0
	f.pages.index = readingIndex{Index: f.pages.index, read: func() {
		reads++
		runtime.GC()
		for _, w := range given {
			if w.Value() != nil {
				t.Fatal("an entry the walk gave is held while the page is read")
			}
		}
	}}
	body := f.do(t, "GET", "/admin", f.admin, nil).Body.String()
	if reads != len(f.entries) || walks != 1 {
		t.Fatalf("the page's %d entries were read %d times, in %d walks", len(f.entries), reads, walks)
	}
	for _, e := range f.entries {
		if !strings.Contains(body, `action="/admin/entries/`+e.ID+`/hide"`) {
			t.Errorf("the page lacks %s", e.Name)
		}
	}
}

// Every action on the page is the admin API's, recorded in the audit as
// the account's.
func TestAdminPageActions(t *testing.T) {
	f := newAdminFixture(t)
	ctx := context.Background()
	a, b := f.entries[0].ID, f.entries[1].ID
	post := func(path string, form url.Values, want int) string {
		t.Helper()
		w := f.do(t, "POST", path, f.admin, form)
		if w.Code != want {
			t.Fatalf("%s: %d, want %d\n%s", path, w.Code, want, w.Body.String())
		}
		return w.Body.String()
	}
	post("/admin/entries/"+a+"/approve", url.Values{}, http.StatusSeeOther)
	if ids, _ := (&adminops.Ops{Store: f.db}).Approved(ctx); len(ids) != 1 || ids[0] != a {
		t.Fatalf("approved: %v", ids)
	}
	if body := f.do(t, "GET", "/admin?done=approve", f.admin, nil).Body.String(); !strings.Contains(body, "The entry was approved.") || !strings.Contains(body, "/admin/entries/"+a+"/unapprove") {
		t.Error("the page after approving")
	}
	form := url.Values{"name": {"alpha"}, "title": {"Alpha"}, "brief": {"A better brief"}, "description": {"More"}, "website_url": {"https://example.com/alpha"}, "tags": {"db, sql"}}
	post("/admin/entries/"+a+"/edit", form, http.StatusSeeOther)
	got, _ := f.db.EntriesByID(ctx, []string{a})
	if len(got) != 1 || got[0].Brief != "A better brief" || !got[0].Edited || got[0].Source != mcpdir.SourceImport || len(got[0].Tags) != 2 {
		t.Fatalf("edited: %+v", got)
	}
	form.Set("website_url", "https://elsewhere.example/")
	if body := post("/admin/entries/"+a+"/edit", form, http.StatusBadRequest); !strings.Contains(body, "belongs to id") {
		t.Error("an edit that moves the id is refused, saying why")
	}
	post("/admin/entries/"+a+"/split", url.Values{"other": {b}}, http.StatusSeeOther)
	post("/admin/entries/"+a+"/join", url.Values{"other": {b}}, http.StatusSeeOther)
	post("/admin/entries/"+a+"/join", url.Values{"other": {"nope"}}, http.StatusBadRequest)
	post("/admin/entries/"+b+"/hide", url.Values{}, http.StatusSeeOther)
	if got, _ := f.db.EntriesByID(ctx, []string{b}); len(got) != 0 {
		t.Fatal("not hidden")
	}
	post("/admin/entries/"+b+"/hide", url.Values{}, http.StatusNotFound)
	recs, _ := f.db.Audit(ctx, 0, 100)
	var actions []string
	for _, r := range recs {
		if r.Actor != "account boss@example.com" {
			t.Errorf("actor %q", r.Actor)
		}
		actions = append(actions, r.Action)
	}
	if strings.Join(actions, " ") != "entry.delete entry.join entry.split entry.replace entry.approve" {
		t.Errorf("audit: %v", actions)
	}
	// The edit form shows the record.
	if body := f.do(t, "GET", "/admin/entries/"+a, f.admin, nil).Body.String(); !strings.Contains(body, `value="A better brief"`) {
		t.Error("the edit form")
	}
	// A cross-site POST is refused.
	r := httptest.NewRequest("POST", "/admin/entries/"+a+"/unapprove", nil)
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: f.admin})
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden {
		t.Fatalf("cross-site: %d", w.Code)
	}
}

// The chart sums hours into days, the last seven ending today.
func TestSearchChart(t *testing.T) {
	c := newSearchChart([]mcpdir.InsightBucket{
		{Hour: adminNow, Door: mcpdir.DoorWeb, Searches: 4},
		{Hour: adminNow.Add(-time.Hour), Door: mcpdir.DoorWeb, Searches: 6},
		{Hour: adminNow.Add(-10 * 24 * time.Hour), Door: mcpdir.DoorWeb, Searches: 100}, // before the week
		{Hour: adminNow, Door: "elsewhere", Searches: 1},
	}, adminNow)
	if len(c.Rows) != 7 || c.Rows[6].Day != "2026-11-29" || c.Rows[6].Total != 11 || c.Rows[6].ByDoor[0] != 10 || c.Rows[6].ByDoor[len(c.Doors)-1] != 1 || c.Max != 11 {
		t.Fatalf("%+v", c.Rows)
	}
	if len(c.Bars) != 2 || c.Bars[0].H != chartBarsH*10/11 {
		t.Fatalf("bars: %+v", c.Bars)
	}
	if empty := newSearchChart(nil, adminNow); empty.Summary != "no searches in the last 7 days" || len(empty.Bars) != 0 {
		t.Fatalf("%+v", empty)
	}
}
