package mcp

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// A call through the SDK spends its key's budget in the tool handler, so
// that only a call that reaches a directory tool spends: a call the SDK
// refuses first (a header mismatch, invalid _meta, an unknown tool) costs
// nothing. The handler runs on the SDK's session goroutine, which for a
// legacy SSE session sees neither the POST's context nor its headers. What
// every transport does carry to the handler is the message itself, so the
// HTTP layer puts a random ticket in the call's params._meta and keeps the
// key under it, with a receipt that the handler fills with its decision and
// that sets the response's rate-limit headers. A client cannot forge a
// ticket: tickets are unguessable, short-lived, single-use, and overwritten
// on every call.

// ticketMeta is the _meta key that carries a ticket.
const ticketMeta = "mcpdir/budget-ticket"

// ticketTTL bounds how long an unredeemed ticket is kept (a call the SDK
// rejected before its handler ran leaves one behind).
const ticketTTL = 5 * time.Minute

type ticket struct {
	key     *mcpdir.APIKey
	receipt *receipt
	expires time.Time
}

// receipt holds the budget decision of a request's last tool call.
type receipt struct {
	mu sync.Mutex
	d  *mcpdir.RateDecision
}

func (r *receipt) record(d mcpdir.RateDecision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.d = &d
}

// setHeaders writes the rate-limit headers of the decision, if any.
func (r *receipt) setHeaders(h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.d != nil {
		wire.SetRateLimitHeaders(h, *r.d)
	}
}

type ticketBox struct {
	now func() time.Time

	mu      sync.Mutex
	tickets map[string]ticket
}

func newTicketBox() *ticketBox {
	return &ticketBox{now: time.Now, tickets: map[string]ticket{}}
}

// issue keeps a key and receipt and returns the ticket that redeems them.
func (b *ticketBox) issue(key *mcpdir.APIKey, r *receipt) string {
	id := rand.Text()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tickets[id] = ticket{key: key, receipt: r, expires: b.now().Add(ticketTTL)}
	return id
}

// redeem returns and forgets what a ticket holds.
func (b *ticketBox) redeem(id string) (ticket, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tickets[id]
	delete(b.tickets, id)
	if !ok || b.now().After(t.expires) {
		return ticket{}, false
	}
	return t, true
}

// sweep forgets expired tickets.
func (b *ticketBox) sweep() {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	for id, t := range b.tickets {
		if now.After(t.expires) {
			delete(b.tickets, id)
		}
	}
}

// attachTickets puts a ticket in each call of a directory tool among msgs
// and reports whether it changed any message (which must then be
// re-encoded). A call whose _meta is not an object gets none: the SDK
// refuses it before any tool runs.
func (b *ticketBox) attachTickets(msgs []*message, key *mcpdir.APIKey, r *receipt) (bool, error) {
	changed := false
	for _, m := range msgs {
		if m.method != "tools/call" || !m.isCall() || !ours(m.tool) {
			continue
		}
		meta := map[string]json.RawMessage{}
		if raw := m.params.get("_meta"); raw != nil && string(raw) != "null" {
			if json.Unmarshal(raw, &meta) != nil || meta == nil {
				continue
			}
		}
		id, err := json.Marshal(b.issue(key, r))
		if err != nil {
			return false, err
		}
		meta[ticketMeta] = id
		params := m.params.toMap()
		if params["_meta"], err = json.Marshal(meta); err != nil {
			return false, err
		}
		if m.fields["params"], err = json.Marshal(params); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}
