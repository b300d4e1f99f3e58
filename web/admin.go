package web

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/adminops"
	"github.com/mcpdir/mcpdir/importer"
	"github.com/mcpdir/mcpdir/merge"
)

// AdminConfig turns on the admin page, /admin: for signed-in accounts the
// operator promoted (mcpdir accounts promote).
type AdminConfig struct {
	// Ops are the actions on entries, the admin API's.
	Ops *adminops.Ops
	// Insights, if set, is the operator's insight (searches by door, the
	// queries asked, keys by use).
	Insights mcpdir.InsightStore
	Audit    mcpdir.AuditStore
	// Entries yields every entry of the index (merge.Index.Entries).
	Entries func(yield func(*mcpdir.Entry))
	// Conflicts, if set, lists what may be one server (merge.Index.Conflicts).
	Conflicts func() []merge.Conflict
	// SyncSources are the registries this server syncs from (serve
	// --sync-from): their positions are shown.
	SyncSources []string
	Now         func() time.Time
}

// WithAdmin turns the admin page on (with the account pages).
func (p *Pages) WithAdmin(cfg *AdminConfig) { p.admin = cfg }

// HasAdmin reports whether the admin area is on (WithAdmin).
func (p *Pages) HasAdmin() bool { return p.admin != nil }

// The admin area's handlers, which http/routes.go maps (POSTs behind
// cross-origin protection), each for signed-in admins only: /admin, an
// entry's page, and its edit, hide, approve, unapprove, split and join.
func (p *Pages) Admin() http.Handler          { return p.adminOnly(p.adminPage) }
func (p *Pages) AdminEntry() http.Handler     { return p.adminOnly(p.adminEntryPage) }
func (p *Pages) AdminEdit() http.Handler      { return p.adminOnly(p.adminEdit) }
func (p *Pages) AdminHide() http.Handler      { return p.adminOnly(p.adminHide) }
func (p *Pages) AdminApprove() http.Handler   { return p.adminOnly(p.adminApprove(true)) }
func (p *Pages) AdminUnapprove() http.Handler { return p.adminOnly(p.adminApprove(false)) }
func (p *Pages) AdminSplit() http.Handler     { return p.adminOnly(p.adminPair(adminops.Split)) }
func (p *Pages) AdminJoin() http.Handler      { return p.adminOnly(p.adminPair(adminops.Join)) }

type adminHandler func(w http.ResponseWriter, r *http.Request, a *mcpdir.Account)

// adminOnly lets signed-in admins through, acting as "account EMAIL" in
// the audit: anyone else signed in gets 403, no one signed in the log-in
// page.
func (p *Pages) adminOnly(h adminHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Nothing of this is anyone else's: no cache keeps it.
		w.Header().Set("Cache-Control", "no-store")
		a := p.SignedIn(r)
		if a == nil {
			http.Redirect(w, r, "/login?next="+url.QueryEscape("/admin"), http.StatusSeeOther)
			return
		}
		if !a.IsAdmin() {
			p.Message(w, r, http.StatusForbidden, "Forbidden", "This page is for the directory's admins. The operator makes an account one with `mcpdir accounts promote EMAIL`.")
			return
		}
		h(w, r.WithContext(mcpdir.WithActor(r.Context(), "account "+a.Email)), a)
	}
}

// adminPageSize is how many entries a page of the admin's list shows.
const adminPageSize = 20

type adminPage struct {
	Base
	Notice, Error string

	Chart        *searchChart
	InsightError string // why the insight is not shown
	ZeroResult   []mcpdir.QueryStat
	TopQueries   []mcpdir.QueryStat
	Keys         []mcpdir.KeyStat

	ToolChanges []toolChangeRow
	Warnings    []warningRow
	Sync        []syncRow
	Conflicts   []conflictRow
	Audit       []auditRow
	AuditError  string

	Query      string
	Entries    []adminEntryRow
	EntryCount int
	Page       int
	Prev, Next string
}

type toolChangeRow struct {
	ID, Name, Words string
	At              time.Time
}

type warningRow struct {
	ID, Name, Severity, Kinds string
	Count                     int
}

type syncRow struct{ Source, Position string }

type conflictRow struct {
	Kind, Key, Reason string
	Entries           []conflictMember
}

type conflictMember struct{ ID, Name, From string }

type auditRow struct {
	Seq                               int64
	At, Actor, Action, Target, Change string
}

type adminEntryRow struct {
	ID, Name, From   string
	Approved, Edited bool
	Merged           int // records merged into it besides its own
}

// adminNotices say what an action did, by the code it redirects with.
var adminNotices = map[string]string{
	"hide":      "The entry was hidden: its record is deleted from the directory.",
	"edit":      "The entry was saved: marked edited, a registry sync leaves it alone.",
	"approve":   "The entry was approved.",
	"unapprove": "The entry's approval was withdrawn.",
	"split":     "The two records were split: they never merge again.",
	"join":      "The two records were joined: they are one entry.",
}

func (p *Pages) adminPage(w http.ResponseWriter, r *http.Request, a *mcpdir.Account) {
	p.renderAdmin(w, r, a, http.StatusOK, "")
}

// renderAdmin draws the admin page; problem is an action's failure.
func (p *Pages) renderAdmin(w http.ResponseWriter, r *http.Request, a *mcpdir.Account, status int, problem string) {
	ctx, cfg := r.Context(), p.admin
	now := time.Now()
	if cfg.Now != nil {
		now = cfg.Now()
	}
	data := &adminPage{Base: Base{Title: "Admin", User: a}, Error: problem, Notice: adminNotices[r.URL.Query().Get("done")]}

	if cfg.Insights == nil {
		data.InsightError = "This server keeps no insight."
	} else if in, err := cfg.Insights.ReadInsights(ctx, now.UTC().Truncate(24*time.Hour).AddDate(0, 0, -(insightDays-1)), 20); err != nil {
		p.logger.ErrorContext(ctx, "web: admin: read insights", "err", err)
		data.InsightError = "The insight could not be read right now: try again shortly."
	} else {
		data.Chart = newSearchChart(in.Searches, now)
		data.ZeroResult, data.TopQueries, data.Keys = in.ZeroResultQueries, in.TopQueries, in.Keys
	}

	// One walk of every entry (each unpacked for it): the page's entries
	// by name, when no query picks them, and the tools' news.
	data.Query = strings.TrimSpace(r.URL.Query().Get("q"))
	var all []adminName
	if cfg.Entries != nil {
		cfg.Entries(func(e *mcpdir.Entry) {
			if data.Query == "" {
				all = append(all, adminName{e.ID, e.Name})
			}
			if e.Live != nil {
				for _, ch := range e.Live.ToolChanges {
					if !ch.First {
						data.ToolChanges = append(data.ToolChanges, toolChangeRow{ID: e.ID, Name: e.Name, Words: ch.Words(), At: ch.At})
					}
				}
			}
			if len(e.ToolWarnings) > 0 {
				row := warningRow{ID: e.ID, Name: e.Name, Count: len(e.ToolWarnings), Severity: mcpdir.SeverityLow}
				var kinds []string
				for _, tw := range e.ToolWarnings {
					if severityRank(tw.Severity) > severityRank(row.Severity) {
						row.Severity = tw.Severity
					}
					if k := tw.Words(); !slices.Contains(kinds, k) {
						kinds = append(kinds, k)
					}
				}
				row.Kinds = strings.Join(kinds, "; ")
				data.Warnings = append(data.Warnings, row)
			}
		})
	}
	p.adminEntries(data, r, all)
	slices.SortFunc(data.ToolChanges, func(x, y toolChangeRow) int { return y.At.Compare(x.At) })
	data.ToolChanges = data.ToolChanges[:min(len(data.ToolChanges), 20)]
	slices.SortFunc(data.Warnings, func(x, y warningRow) int {
		return cmp.Or(severityRank(y.Severity)-severityRank(x.Severity), y.Count-x.Count, strings.Compare(x.Name, y.Name))
	})
	data.Warnings = data.Warnings[:min(len(data.Warnings), 20)]

	for _, src := range cfg.SyncSources {
		pos, err := cfg.Ops.Store.State(ctx, "registry-sync:"+src)
		switch {
		case err != nil:
			pos = "could not be read"
		case pos == "":
			pos = "not synced yet"
		}
		data.Sync = append(data.Sync, syncRow{Source: src, Position: pos})
	}

	if cfg.Conflicts != nil {
		for _, c := range cfg.Conflicts() {
			row := conflictRow{Kind: c.Kind, Key: c.Key, Reason: c.Reason}
			for _, id := range c.Entries {
				if e, ok := p.index.Get(id); ok {
					row.Entries = append(row.Entries, conflictMember{ID: e.ID, Name: e.Name, From: mcpdir.SourceLabel(e.Source, e.Origin)})
				}
			}
			data.Conflicts = append(data.Conflicts, row)
		}
	}

	if cfg.Audit != nil {
		recs, err := cfg.Audit.Audit(ctx, 0, 20)
		if err != nil {
			p.logger.ErrorContext(ctx, "web: admin: read audit", "err", err)
			data.AuditError = "The audit trail could not be read right now."
		}
		for _, rec := range recs {
			data.Audit = append(data.Audit, auditRow{Seq: rec.Seq, At: rec.At.UTC().Format("2006-01-02 15:04 UTC"), Actor: rec.Actor,
				Action: rec.Action, Target: rec.Target, Change: string(rec.Changes)})
		}
	}
	p.render(w, r, status, "admin", data)
}

func severityRank(s string) int {
	switch s {
	case mcpdir.SeverityHigh:
		return 3
	case mcpdir.SeverityMedium:
		return 2
	}
	return 1
}

// adminName is what the entries' list keeps of every entry to order them:
// the walk's entries are unpacked copies, and the page's are read again.
type adminName struct{ id, name string }

// adminEntries fills the page's entries: those matching the query
// (data.Query), else all (every entry's, from the walk) by name, a page
// (?page=) at a time.
func (p *Pages) adminEntries(data *adminPage, r *http.Request, all []adminName) {
	data.Page = max(1, min(atoi(r.URL.Query().Get("page")), 10000))
	from := (data.Page - 1) * adminPageSize
	var page []*mcpdir.Entry
	hits := 0
	if data.Query != "" {
		if keywords, err := mcpdir.ValidateKeywords(data.Query); err == nil {
			res := p.index.Find(mcpdir.Query{Text: keywords, Limit: data.Page * adminPageSize})
			hits, data.EntryCount = len(res.Hits), res.Total
			for _, h := range res.Hits[min(hits, from):min(hits, from+adminPageSize)] {
				page = append(page, h.Entry)
			}
		}
	} else {
		slices.SortFunc(all, func(x, y adminName) int {
			return cmp.Or(strings.Compare(strings.ToLower(x.name), strings.ToLower(y.name)), strings.Compare(x.id, y.id))
		})
		data.EntryCount = len(all)
		for _, n := range all[min(len(all), from):min(len(all), from+adminPageSize)] {
			if e, ok := p.index.Get(n.id); ok {
				page = append(page, e)
			}
		}
	}
	approved := map[string]bool{}
	if ids, err := p.admin.Ops.Approved(r.Context()); err == nil {
		for _, id := range ids {
			approved[id] = true
		}
	}
	for _, e := range page {
		data.Entries = append(data.Entries, adminEntryRow{ID: e.ID, Name: e.Name, From: mcpdir.SourceLabel(e.Source, e.Origin),
			Approved: approved[e.ID], Edited: e.Edited, Merged: len(e.Aliases)})
	}
	link := func(page int) string {
		v := url.Values{"page": {strconv.Itoa(page)}}
		if data.Query != "" {
			v.Set("q", data.Query)
		}
		return "/admin?" + v.Encode() + "#entries"
	}
	if data.Page > 1 {
		data.Prev = link(data.Page - 1)
	}
	if data.Page*adminPageSize < data.EntryCount && (data.Query == "" || hits == data.Page*adminPageSize) {
		data.Next = link(data.Page + 1)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

type adminEntryPage struct {
	Base
	Entry *mcpdir.Entry
	Tags  string
	Error string
}

// adminEntryPage is a record's edit form, with its split and join.
func (p *Pages) adminEntryPage(w http.ResponseWriter, r *http.Request, a *mcpdir.Account) {
	e, err := p.admin.Ops.Entry(r.Context(), strings.ToLower(r.PathValue("id")))
	if err != nil {
		p.adminFailed(w, r, a, err)
		return
	}
	p.render(w, r, http.StatusOK, "adminentry", &adminEntryPage{Base: Base{Title: "Edit " + e.Name, User: a}, Entry: e, Tags: strings.Join(e.Tags, ", ")})
}

// adminEdit replaces the record with its name, title, brief, description,
// website and tags as the form gives them (the admin API's PUT: validated
// as an import's record, marked edited).
func (p *Pages) adminEdit(w http.ResponseWriter, r *http.Request, a *mcpdir.Account) {
	id := strings.ToLower(r.PathValue("id"))
	stored, err := p.admin.Ops.Entry(r.Context(), id)
	if err != nil {
		p.adminFailed(w, r, a, err)
		return
	}
	edited := *stored
	f := func(name string) string { return strings.TrimSpace(r.PostFormValue(name)) }
	edited.Name, edited.Title, edited.Brief, edited.Description, edited.WebsiteURL = f("name"), f("title"), f("brief"), f("description"), f("website_url")
	edited.Tags = nil
	for t := range strings.SplitSeq(f("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			edited.Tags = append(edited.Tags, t)
		}
	}
	fail := func(err error) {
		w.Header().Set("Cache-Control", "no-store")
		p.render(w, r, http.StatusBadRequest, "adminentry", &adminEntryPage{Base: Base{Title: "Edit " + stored.Name, User: a}, Entry: &edited,
			Tags: f("tags"), Error: mcpdir.ErrorMessage(err)})
	}
	e, err := importer.ParseRecord(mustJSON(&edited))
	if re, ok := errors.AsType[*mcpdir.RecordError](err); ok {
		fail(mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "invalid entry record: %s", re.Error()))
		return
	} else if err != nil {
		fail(err)
		return
	}
	if _, err := p.admin.Ops.Replace(r.Context(), id, adminops.AsAdmin(e)); err != nil {
		if _, ok := errors.AsType[*mcpdir.Error](err); ok && mcpdir.ErrorCode(err) == mcpdir.ECodeInvalidRequest {
			fail(err)
			return
		}
		p.adminFailed(w, r, a, err)
		return
	}
	adminDone(w, r, "edit")
}

func (p *Pages) adminHide(w http.ResponseWriter, r *http.Request, a *mcpdir.Account) {
	if err := p.admin.Ops.Delete(r.Context(), strings.ToLower(r.PathValue("id"))); err != nil {
		p.adminFailed(w, r, a, err)
		return
	}
	adminDone(w, r, "hide")
}

func (p *Pages) adminApprove(approve bool) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, a *mcpdir.Account) {
		if err := p.admin.Ops.SetApproved(r.Context(), r.PathValue("id"), approve); err != nil {
			p.adminFailed(w, r, a, err)
			return
		}
		adminDone(w, r, map[bool]string{true: "approve", false: "unapprove"}[approve])
	}
}

func (p *Pages) adminPair(c adminops.PairChange) adminHandler {
	return func(w http.ResponseWriter, r *http.Request, a *mcpdir.Account) {
		other := strings.ToLower(strings.TrimSpace(r.PostFormValue("other")))
		if !mcpdir.IsUUID(other) {
			p.renderAdmin(w, r, a, http.StatusBadRequest, "Give the other record's id (a UUID) to split from or join with.")
			return
		}
		if _, _, err := p.admin.Ops.ChangePairs(r.Context(), c, strings.ToLower(r.PathValue("id")), other); err != nil {
			p.adminFailed(w, r, a, err)
			return
		}
		adminDone(w, r, strings.TrimPrefix(c.Action, "entry."))
	}
}

// adminDone sends the admin back to the page, saying what was done.
func adminDone(w http.ResponseWriter, r *http.Request, what string) {
	http.Redirect(w, r, "/admin?done="+what, http.StatusSeeOther)
}

// adminFailed answers an action that failed: the page again, saying why
// (a store's failure in general words, logged).
func (p *Pages) adminFailed(w http.ResponseWriter, r *http.Request, a *mcpdir.Account, err error) {
	status, msg := http.StatusBadRequest, mcpdir.ErrorMessage(err)
	switch _, ok := errors.AsType[*mcpdir.Error](err); {
	case !ok:
		p.logger.ErrorContext(r.Context(), "web: admin", "err", err)
		status, msg = http.StatusServiceUnavailable, "The directory's store could not complete this: try again shortly."
	case mcpdir.ErrorCode(err) == mcpdir.ECodeNotFound:
		status = http.StatusNotFound
	case mcpdir.ErrorCode(err) == mcpdir.ECodeConflict:
		status = http.StatusConflict
	}
	p.renderAdmin(w, r, a, status, msg)
}

// mustJSON is v's JSON; v is a value that always encodes.
func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
