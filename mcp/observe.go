package mcp

import (
	"context"
	"log/slog"
)

// Observer counts the endpoint's traffic (package metrics).
type Observer interface {
	// CountMessage counts a message: its method ("other" for one the
	// server does not know) and, for tools/call, the tool ("other" for
	// one it does not offer; "" for other methods).
	CountMessage(method, tool string)
	StreamOpened()
	StreamClosed()
}

type noObserver struct{}

func (noObserver) CountMessage(string, string) {}
func (noObserver) StreamOpened()               {}
func (noObserver) StreamClosed()               {}

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
