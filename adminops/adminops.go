// Package adminops is what an admin does to the directory's entries:
// create, replace and delete records, split and join them, approve and
// unapprove them, each recorded in the audit trail. The admin API (package
// http) and the admin page (package web, /admin) both act through it.
package adminops

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/merge"
)

// Store is what an admin's actions write: entries, the merge's splits,
// joins and approvals (state), and the audit.
type Store interface {
	mcpdir.EntryStore
	mcpdir.StateStore
	mcpdir.AuditStore
}

// Ops acts on the store for the actor of each call's context
// (mcpdir.WithActor).
type Ops struct {
	Store Store
	// GroupOf, if set, finds the entry a record id is merged into and the
	// ids of every record in it (merge.Index.GroupOf).
	GroupOf func(id string) (string, []string, bool)
	Logger  *slog.Logger
}

// Entry returns the stored record id, or not_found.
func (o *Ops) Entry(ctx context.Context, id string) (*mcpdir.Entry, error) {
	got, err := o.Store.EntriesByID(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, mcpdir.Errorf(mcpdir.ECodeNotFound, "no entry has id %s", id)
	}
	return got[0], nil
}

// AsAdmin marks a validated record the admin's, its times the store's to
// set.
func AsAdmin(e *mcpdir.Entry) *mcpdir.Entry {
	e.Source = mcpdir.SourceAdmin
	e.CreatedAt, e.UpdatedAt = time.Time{}, time.Time{}
	return e
}

// Create stores a new record (AsAdmin); one whose id is taken is a
// conflict.
func (o *Ops) Create(ctx context.Context, e *mcpdir.Entry) (*mcpdir.Entry, error) {
	id := mcpdir.EntryID(e.NaturalKey())
	if _, err := o.Entry(ctx, id); err == nil {
		return nil, mcpdir.Errorf(mcpdir.ECodeConflict, "an entry with this website_url (or name) exists: id %s; replace it with PUT", id)
	} else if mcpdir.ErrorCode(err) != mcpdir.ECodeNotFound {
		return nil, err
	}
	return o.save(ctx, e, id, nil)
}

// Replace replaces record id with e: where it came from does not change,
// and that an admin changed it is recorded (Edited), so that a registry
// sync leaves the change alone. e's website (or name) must still be id's.
func (o *Ops) Replace(ctx context.Context, id string, e *mcpdir.Entry) (*mcpdir.Entry, error) {
	stored, err := o.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	e.Source, e.Origin, e.Key, e.Edited = stored.Source, stored.Origin, stored.Key, true
	if got := mcpdir.EntryID(e.NaturalKey()); got != id {
		return nil, mcpdir.Errorf(mcpdir.ECodeInvalidRequest,
			"the record's website_url (or name) belongs to id %s, not %s: an entry's id follows its website; delete this one and create the other", got, id)
	}
	return o.save(ctx, e, id, stored)
}

// save writes a record an admin created (before nil) or replaced, and
// records what changed in the audit.
func (o *Ops) save(ctx context.Context, e *mcpdir.Entry, id string, before *mcpdir.Entry) (*mcpdir.Entry, error) {
	if _, err := o.Store.UpsertEntries(ctx, []*mcpdir.Entry{e}); err != nil {
		return nil, err
	}
	saved, err := o.Entry(ctx, id)
	if err != nil {
		return nil, err
	}
	action := "entry.create"
	if before != nil {
		action = "entry.replace"
	}
	o.Audit(ctx, action, id, mcpdir.EntryChanges(before, saved))
	return saved, nil
}

// Delete deletes record id (it leaves the directory: how an admin hides
// an entry).
func (o *Ops) Delete(ctx context.Context, id string) error {
	before, err := o.Entry(ctx, id)
	if err != nil {
		return err
	}
	n, err := o.Store.DeleteEntries(ctx, []string{id})
	if err != nil {
		return err
	}
	if n == 0 {
		return mcpdir.Errorf(mcpdir.ECodeNotFound, "no entry has id %s", id)
	}
	o.Audit(ctx, "entry.delete", id, mcpdir.EntryChanges(before, nil))
	return nil
}

// Pair changes: what a split, a join and their withdrawals do to the
// splits and the joins (nil: that set is left alone).
type PairChange struct {
	Action        string
	Splits, Joins func(merge.Splits, string, string)
}

var (
	// Split declares two records distinct: they never merge into one
	// entry again; it withdraws a join of the two.
	Split = PairChange{"entry.split", merge.Splits.Add, merge.Splits.Remove}
	// Unsplit withdraws a split.
	Unsplit = PairChange{"entry.unsplit", merge.Splits.Remove, nil}
	// Join declares two records one server, whatever the rule says; it
	// withdraws a split of the two.
	Join = PairChange{"entry.join", merge.Splits.Remove, merge.Splits.Add}
	// Unjoin withdraws a join.
	Unjoin = PairChange{"entry.unjoin", nil, merge.Splits.Remove}
)

// ChangePairs applies c to records id and other, on every replica within
// a second; it returns the ids id is split from and joined with.
func (o *Ops) ChangePairs(ctx context.Context, c PairChange, id, other string) (splitFrom, joinedWith []string, err error) {
	if id == other {
		return nil, nil, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "a record is not split from or joined with itself")
	}
	for _, x := range []string{id, other} {
		if _, err := o.Entry(ctx, x); err != nil {
			return nil, nil, err
		}
	}
	splitFrom, joinedWith = []string{}, []string{}
	for _, set := range []struct {
		key    string
		change func(merge.Splits, string, string)
		out    *[]string
	}{{merge.SplitsKey, c.Splits, &splitFrom}, {merge.JoinsKey, c.Joins, &joinedWith}} {
		s := merge.Splits{}
		raw, err := o.Store.State(ctx, set.key)
		if err == nil && raw != "" {
			err = json.Unmarshal([]byte(raw), &s)
		}
		if err != nil {
			return nil, nil, err
		}
		if set.change != nil {
			set.change(s, id, other)
			b, _ := json.Marshal(s)
			if err := o.Store.SetState(ctx, set.key, string(b)); err != nil {
				return nil, nil, err
			}
		}
		*set.out = append(*set.out, s.Of(id)...)
	}
	b, _ := json.Marshal(map[string]string{"other": other})
	o.Audit(ctx, c.Action, id, b)
	return splitFrom, joinedWith, nil
}

// Approved is the ids of the approved records (serve --listing approved).
func (o *Ops) Approved(ctx context.Context) ([]string, error) {
	raw, err := o.Store.State(ctx, merge.ApprovedKey)
	var ids []string
	if err == nil && raw != "" {
		err = json.Unmarshal([]byte(raw), &ids)
	}
	return ids, err
}

// SetApproved lists record id in an approved-only catalogue, or takes it
// out: unapproving takes out every record merged with it too.
func (o *Ops) SetApproved(ctx context.Context, id string, approve bool) error {
	id = strings.ToLower(id)
	if _, err := o.Entry(ctx, id); err != nil {
		return err
	}
	ids, err := o.Approved(ctx)
	if err != nil {
		return err
	}
	group := []string{id}
	if o.GroupOf != nil {
		if _, members, ok := o.GroupOf(id); ok {
			group = append(group, members...)
		}
	}
	if approve {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	} else {
		ids = slices.DeleteFunc(ids, func(x string) bool { return slices.Contains(group, x) })
	}
	slices.Sort(ids)
	b, _ := json.Marshal(ids)
	if err := o.Store.SetState(ctx, merge.ApprovedKey, string(b)); err != nil {
		return err
	}
	o.Audit(ctx, map[bool]string{true: "entry.approve", false: "entry.unapprove"}[approve], id, nil)
	return nil
}

// Audit records an action of ctx's actor; a failure to record it is
// logged (the action is done).
func (o *Ops) Audit(ctx context.Context, action, target string, changes json.RawMessage) {
	rec := mcpdir.AuditRecord{Actor: mcpdir.ActorOf(ctx), Action: action, Target: target, Changes: changes}
	if err := o.Store.AppendAudit(ctx, rec); err != nil && o.Logger != nil {
		o.Logger.ErrorContext(ctx, "audit: an action was not recorded", "action", action, "target", target, "err", err)
	}
}
