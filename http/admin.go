package http

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/adminops"
	"github.com/mcpdir/mcpdir/importer"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/wire"
)

// AdminStore is what the admin API writes: entries, and the merge's
// splits (state).
type AdminStore interface {
	mcpdir.EntryStore
	mcpdir.StateStore
	mcpdir.AuditStore
}

// AdminGuard is a Guard that also keeps admin keys' admin budget
// (auth.Service).
type AdminGuard interface {
	mcpdir.Guard
	SpendAdmin(ctx context.Context, key *mcpdir.APIKey) (mcpdir.RateDecision, error)
}

// admin is the admin API: entries created, read, replaced and deleted by
// admin keys, and the whole directory exported as NDJSON that `mcpdir
// import` takes back. Writes reach search within a second, through the
// change feed, on every replica.
type admin struct {
	index       Searcher
	conflictsOf func() []merge.Conflict
	store       AdminStore
	guard       AdminGuard
	logger      *slog.Logger
	ops         *adminops.Ops // the actions, shared with the admin page
}

// authorize lets admin keys through, spending their admin budget (not the
// search one); a search key gets 403, no key 401.
func (a *admin) authorize(next func(w http.ResponseWriter, r *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := a.guard.Authenticate(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			writeError(w, r, a.logger, err)
			return
		}
		if key.Scope != mcpdir.ScopeAdmin {
			writeError(w, r, a.logger, mcpdir.Errorf(mcpdir.ECodeForbidden, "this needs an admin key: the key's scope is %s", key.Scope))
			return
		}
		d, err := a.guard.SpendAdmin(r.Context(), key)
		if err != nil {
			writeError(w, r, a.logger, err)
			return
		}
		wire.SetRateLimitHeaders(w.Header(), d)
		if !d.Allowed {
			writeError(w, r, a.logger, mcpdir.RateLimitedError(d))
			return
		}
		next(w, r.WithContext(mcpdir.WithActor(r.Context(), mcpdir.KeyActor(key))))
	})
}

// record reads one entry record from the body, validated as import
// validates a line, and marks it the admin's.
func (a *admin) record(r *http.Request) (*mcpdir.Entry, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, mcpdir.MaxRecordBytes+1))
	if err != nil {
		return nil, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "the body could not be read")
	}
	if len(body) > mcpdir.MaxRecordBytes {
		return nil, mcpdir.Errorf(mcpdir.ECodeTooLarge, "an entry record is at most %d bytes", mcpdir.MaxRecordBytes)
	}
	e, err := importer.ParseRecord(body)
	if re, ok := errors.AsType[*mcpdir.RecordError](err); ok {
		return nil, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "invalid entry record: %s", re.Error())
	} else if err != nil {
		return nil, err
	}
	return adminops.AsAdmin(e), nil
}

func (a *admin) create(w http.ResponseWriter, r *http.Request) {
	e, err := a.record(r)
	if err != nil {
		writeError(w, r, a.logger, err)
		return
	}
	saved, err := a.ops.Create(r.Context(), e)
	a.answerSaved(w, r, saved, http.StatusCreated, err)
}

func (a *admin) get(w http.ResponseWriter, r *http.Request) {
	e, err := a.ops.Entry(r.Context(), r.PathValue("id"))
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, e)
}

func (a *admin) replace(w http.ResponseWriter, r *http.Request) {
	e, err := a.record(r)
	if err != nil {
		writeError(w, r, a.logger, err)
		return
	}
	saved, err := a.ops.Replace(r.Context(), r.PathValue("id"), e)
	a.answerSaved(w, r, saved, http.StatusOK, err)
}

// answerSaved answers a record an admin created or replaced.
func (a *admin) answerSaved(w http.ResponseWriter, r *http.Request, saved *mcpdir.Entry, status int, err error) {
	if err != nil {
		a.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/admin/v1/entries/"+saved.ID)
	writeJSON(w, status, saved)
}

func (a *admin) delete(w http.ResponseWriter, r *http.Request) {
	if err := a.ops.Delete(r.Context(), r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// auditLog is the audit trail, newest first: ?before=SEQ&limit=N (at most
// mcpdir.MaxAuditPage).
func (a *admin) auditLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	before, err1 := strconv.ParseInt(cmp.Or(q.Get("before"), "0"), 10, 64)
	limit, err2 := strconv.Atoi(cmp.Or(q.Get("limit"), "100"))
	if err1 != nil || err2 != nil || before < 0 || limit < 1 || limit > mcpdir.MaxAuditPage {
		writeError(w, r, a.logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "before is a sequence number and limit 1 to %d", mcpdir.MaxAuditPage))
		return
	}
	recs, err := a.store.Audit(r.Context(), before, limit)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	out := map[string]any{"data": nonNilRecords(recs), "count": len(recs)}
	if len(recs) == limit {
		out["next_before"] = recs[len(recs)-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

func nonNilRecords(rs []mcpdir.AuditRecord) []mcpdir.AuditRecord {
	if rs == nil {
		return []mcpdir.AuditRecord{}
	}
	return rs
}

// split declares two records distinct: they never merge into one entry
// again (package merge), on every replica within a second. It is how an
// admin reverses a merge; it withdraws a join of the two.
func (a *admin) split(w http.ResponseWriter, r *http.Request) {
	a.declarePair(w, r, adminops.Split, "from")
}

// unsplit withdraws a split: the two records merge again if the rule says
// they are one server.
func (a *admin) unsplit(w http.ResponseWriter, r *http.Request) {
	a.changePairs(w, r, adminops.Unsplit, r.PathValue("id"), r.PathValue("other"))
}

// join declares two records one server, whatever the rule says: how an
// admin resolves a conflict (GET /api/admin/v1/conflicts). It withdraws a
// split of the two.
func (a *admin) join(w http.ResponseWriter, r *http.Request) {
	a.declarePair(w, r, adminops.Join, "with")
}

// unjoin withdraws a join.
func (a *admin) unjoin(w http.ResponseWriter, r *http.Request) {
	a.changePairs(w, r, adminops.Unjoin, r.PathValue("id"), r.PathValue("other"))
}

// declarePair changes the pair of the path's id and the record the body
// names: {"<field>": "<the other record's id>"}.
func (a *admin) declarePair(w http.ResponseWriter, r *http.Request, c adminops.PairChange, field string) {
	var body map[string]string
	dec := json.NewDecoder(io.LimitReader(r.Body, 4<<10))
	if err := dec.Decode(&body); err != nil || len(body) != 1 || !mcpdir.IsUUID(body[field]) {
		writeError(w, r, a.logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, `the body is {"%s": "<the other record's id>"}`, field))
		return
	}
	a.changePairs(w, r, c, r.PathValue("id"), body[field])
}

// pairsAnswer is what a split or a join answers: the ids an entry's record
// is declared distinct from, and those it is joined with.
type pairsAnswer struct {
	ID         string   `json:"id"`
	SplitFrom  []string `json:"split_from"`
	JoinedWith []string `json:"joined_with"`
}

// changePairs changes an admin's splits and joins of id and other, on
// every replica within a second.
func (a *admin) changePairs(w http.ResponseWriter, r *http.Request, c adminops.PairChange, id, other string) {
	splitFrom, joinedWith, err := a.ops.ChangePairs(r.Context(), c, id, other)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pairsAnswer{ID: id, SplitFrom: splitFrom, JoinedWith: joinedWith})
}

// approve lists an entry in an approved-only catalogue (serve --listing
// approved): the record and the entry it is merged into, on every replica
// within a second.
func (a *admin) approve(w http.ResponseWriter, r *http.Request) {
	a.changeApproved(w, r, true)
}

// unapprove takes an entry out of an approved-only catalogue: the record's
// approval, and that of every record merged with it.
func (a *admin) unapprove(w http.ResponseWriter, r *http.Request) {
	a.changeApproved(w, r, false)
}

func (a *admin) changeApproved(w http.ResponseWriter, r *http.Request, approve bool) {
	id := strings.ToLower(r.PathValue("id"))
	if err := a.ops.SetApproved(r.Context(), id, approve); err != nil {
		a.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "approved": approve})
}

// conflictView is a conflict with its entries' names and sources, for an
// admin to judge.
type conflictView struct {
	Kind    string          `json:"kind"`
	Key     string          `json:"key"`
	Reason  string          `json:"reason"`
	Entries []conflictEntry `json:"entries"`
}

type conflictEntry struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`
	Origin string `json:"origin,omitempty"`
	From   string `json:"from"`
}

// conflicts lists what may be one server but was not trusted enough to
// join (package merge): an admin's to resolve with a join or a split.
func (a *admin) conflicts(w http.ResponseWriter, r *http.Request) {
	out := []conflictView{}
	if a.conflictsOf != nil {
		for _, c := range a.conflictsOf() {
			v := conflictView{Kind: c.Kind, Key: c.Key, Reason: c.Reason}
			for _, id := range c.Entries {
				e, ok := a.index.Get(id)
				if !ok {
					continue
				}
				v.Entries = append(v.Entries, conflictEntry{ID: e.ID, Name: e.Name, Source: cmp.Or(e.Source, "starter"), Origin: e.Origin, From: mcpdir.SourceLabel(e.Source, e.Origin)})
			}
			out = append(out, v)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out, "count": len(out)})
}

// export streams every entry as one JSON record a line: what `mcpdir
// import` reads, ids and times included. A failure after the first line
// can only cut the stream short, so it is logged and the line count is in
// a trailer.
func (a *admin) export(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="mcpdir-export.ndjson"`)
	w.Header().Set("Trailer", "X-Export-Count")
	// The export is as long as the directory: no per-request deadline.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	out := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	n := 0
	err := a.store.AllEntries(r.Context(), func(e *mcpdir.Entry) error {
		n++
		return enc.Encode(e)
	})
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		a.logger.WarnContext(r.Context(), "admin export cut short", "lines", n, "err", err)
		if n == 0 {
			a.fail(w, r, err)
		}
		return
	}
	w.Header().Set("X-Export-Count", strconv.Itoa(n))
}

// fail answers an error: a client's as it is; a store's as unavailable
// (503), logged with its detail.
func (a *admin) fail(w http.ResponseWriter, r *http.Request, err error) {
	if _, ok := errors.AsType[*mcpdir.Error](err); !ok {
		a.logger.WarnContext(r.Context(), "admin: store", "err", err)
		err = mcpdir.Errorf(mcpdir.ECodeUnavailable, "the directory's store could not complete this: try again shortly")
	}
	writeError(w, r, a.logger, err)
}
