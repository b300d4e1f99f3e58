package mcp

import (
	"context"
	"log/slog"
)

// Observer counts the endpoint's traffic (package metrics).
type Observer interface {
	// MessageCounter returns what counts a message: of its method ("other"
	// for one the server does not know) and, for tools/call, its tool
	// ("other" for one it does not offer; "" for other methods). The
	// endpoint asks for every pair once, at start.
	MessageCounter(method, tool string) func()
	StreamOpened()
	StreamClosed()
}

type noObserver struct{}

func (noObserver) MessageCounter(string, string) func() { return func() {} }
func (noObserver) StreamOpened()                        {}
func (noObserver) StreamClosed()                        {}

// messageCounters are the counters of every method and tool, resolved at
// start, so that counting a message looks nothing up by label.
type messageCounters struct {
	methods        map[string]func() // known methods but tools/call
	other          func()
	search, detail func() // tools/call of the directory's tools
	otherTool      func() // tools/call of any other name
}

func newMessageCounters(o Observer) *messageCounters {
	c := &messageCounters{
		methods: make(map[string]func(), len(knownMethods)),
		other:   o.MessageCounter("other", ""),
		search:  o.MessageCounter("tools/call", toolSearch), detail: o.MessageCounter("tools/call", toolDetail),
		otherTool: o.MessageCounter("tools/call", "other"),
	}
	for method := range knownMethods {
		if method != "tools/call" {
			c.methods[method] = o.MessageCounter(method, "")
		}
	}
	return c
}

// count counts a message, naming only what the server knows, so that
// clients cannot grow the metrics' label sets.
func (c *messageCounters) count(m *message) {
	switch {
	case m.method == "":
		// a response to the server
	case m.method == "tools/call":
		switch m.tool {
		case toolSearch:
			c.search()
		case toolDetail:
			c.detail()
		default:
			c.otherTool()
		}
	default:
		if inc, ok := c.methods[m.method]; ok {
			inc()
		} else {
			c.other()
		}
	}
}

// quietHandler passes on the SDK's warnings and errors, and its info lines
// only when debugging: it logs several info lines per request (a session
// connected, initialized, ended), tens of megabytes a minute under load.
type quietHandler struct{ slog.Handler }

func (q quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return (l >= slog.LevelWarn || q.Handler.Enabled(ctx, slog.LevelDebug)) && q.Handler.Enabled(ctx, l)
}

func (q quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietHandler{q.Handler.WithAttrs(attrs)}
}

func (q quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{q.Handler.WithGroup(name)}
}

// syncShared keeps this replica's sessions and the shared records in step:
// it renews the records of the sessions it holds, and closes those ended
// elsewhere (a DELETE on another replica) or lapsed.
func (h *Handler) syncShared() {
	if h.cfg.Shared == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.KeyCheckInterval)
	defer cancel()
	var gone []*session
	for _, id := range h.sessions.ids() {
		_, found, err := h.cfg.Shared.Get(ctx, id, h.cfg.SessionIdleTimeout)
		if err != nil {
			return // the shared store is away: end nothing on its account
		}
		if s := h.sessions.lookup(id); !found && s != nil && h.sessions.remove(id) {
			gone = append(gone, s)
		}
	}
	h.closeSessions(gone)
}
