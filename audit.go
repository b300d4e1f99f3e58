package mcpdir

import (
	"context"
	"encoding/json"
	"time"
)

// AuditRecord is one action of an admin or a publisher: who did what to
// what, when, and what it changed.
type AuditRecord struct {
	Seq    int64     `json:"seq"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`  // "key mcpd_ab12… (laptop)", "cli", "account a@b.example"
	Action string    `json:"action"` // entry.replace, registry.publish, key.revoke, …
	Target string    `json:"target"` // an entry's id, name@version, a key's prefix, an email
	// Changes is what the action changed, as JSON: the fields an edit
	// changed with their values before and after, or what was created.
	Changes json.RawMessage `json:"changes,omitempty"`
}

// MaxAuditPage is how many records one read of the audit returns at most.
const MaxAuditPage = 500

// AuditStore keeps the audit trail.
type AuditStore interface {
	// AppendAudit records an action; the store gives it its sequence
	// number (and the time, when At is zero).
	AppendAudit(ctx context.Context, r AuditRecord) error
	// Audit returns records newest first: those before sequence number
	// before (0: from the newest), at most limit.
	Audit(ctx context.Context, before int64, limit int) ([]AuditRecord, error)
}

type actorKey struct{}

// WithActor is ctx carrying who acts (an audit record's Actor).
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

// ActorOf is who acts in ctx, or "".
func ActorOf(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

// KeyActor names an API key as an actor: its prefix and name.
func KeyActor(k *APIKey) string {
	if k == nil {
		return ""
	}
	return "key " + k.Prefix + "… (" + k.Name + ")"
}

// EntryChanges is what an edit changed, field by field, as JSON:
// {"field": {"before": …, "after": …}}; a field either side lacks is
// null there. before or after may be nil (a creation, a deletion).
func EntryChanges(before, after *Entry) json.RawMessage {
	fields := func(e *Entry) map[string]json.RawMessage {
		m := map[string]json.RawMessage{}
		if e != nil {
			c := *e
			c.ID, c.CreatedAt, c.UpdatedAt = "", time.Time{}, time.Time{}
			b, _ := json.Marshal(&c)
			json.Unmarshal(b, &m)
		}
		return m
	}
	b, a := fields(before), fields(after)
	type change struct {
		Before json.RawMessage `json:"before"`
		After  json.RawMessage `json:"after"`
	}
	out := map[string]change{}
	for k, v := range b {
		if string(a[k]) != string(v) {
			out[k] = change{v, a[k]}
		}
	}
	for k, v := range a {
		if _, ok := b[k]; !ok {
			out[k] = change{nil, v}
		}
	}
	raw, _ := json.Marshal(out)
	return raw
}
