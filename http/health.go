package http

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpdir/mcpdir"
)

// handleHealthz says the process is alive.
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

// handleReadyz says whether the store and index are ready to serve.
func handleReadyz(ready func(context.Context) error, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if ready != nil {
			if err := ready(ctx); err != nil {
				logger.WarnContext(ctx, "not ready", "err", err)
				writeError(w, r, nil, mcpdir.Errorf(mcpdir.ECodeUnavailable, "not ready"))
				return
			}
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
}
