package mcp

import (
	"crypto/rand"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
)

// A tool call's budget is spent by the HTTP layer, before the SDK sees the
// request: the rate-limit headers must be set before the response is
// written, and the SDK writes it. The decision then has to reach the tool
// handler, which runs on the SDK's session goroutine: for a stateful session
// that is not the POST's context, and for a legacy SSE session the handler
// gets neither the POST's context nor its headers. What every transport
// does carry to the handler is the message itself, so the HTTP layer puts a
// random ticket in the call's params._meta and keeps the decision under it;
// the handler redeems the ticket. A client cannot forge one: tickets are
// unguessable, short-lived, single-use, and overwritten on every call.

// ticketMeta is the _meta key that carries a ticket.
const ticketMeta = "mcpdir/budget-ticket"

// ticketTTL bounds how long an unredeemed ticket is kept (a call the SDK
// rejected before its handler ran leaves one behind).
const ticketTTL = 5 * time.Minute

type ticket struct {
	decision mcpdir.RateDecision
	err      error // the limiter failed: the call must not run
	expires  time.Time
}

type ticketBox struct {
	now func() time.Time

	mu      sync.Mutex
	tickets map[string]ticket
}

func newTicketBox() *ticketBox {
	return &ticketBox{now: time.Now, tickets: map[string]ticket{}}
}

// issue keeps a decision and returns the ticket that redeems it.
func (b *ticketBox) issue(d mcpdir.RateDecision, err error) string {
	id := rand.Text()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tickets[id] = ticket{decision: d, err: err, expires: b.now().Add(ticketTTL)}
	return id
}

// redeem returns and forgets the decision a ticket holds.
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

// callMeta returns a tools/call message's params._meta, or false when it is
// not an object (the SDK will reject the call, so none is spent).
func callMeta(m *message) (map[string]json.RawMessage, bool) {
	meta := map[string]json.RawMessage{}
	if raw, ok := m.params["_meta"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &meta) != nil || meta == nil {
			return nil, false
		}
	}
	return meta, true
}

// attach puts a ticket in the call's _meta, keeping what else it holds
// (2026-07-28 requests carry their protocol version there).
func attach(m *message, meta map[string]json.RawMessage, ticketID string) error {
	id, err := json.Marshal(ticketID)
	if err != nil {
		return err
	}
	meta[ticketMeta] = id
	if m.params["_meta"], err = json.Marshal(meta); err != nil {
		return err
	}
	m.fields["params"], err = json.Marshal(m.params)
	return err
}
