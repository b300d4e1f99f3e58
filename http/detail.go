package http

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// detailResponse is GET /api/open/v1/servers/{id}'s answer: what
// get_mcp_detail's data holds.
type detailResponse struct {
	Data wire.Detail `json:"data"`
}

// handleDetail serves GET /api/open/v1/servers/{id}: one server's full
// record, as get_mcp_detail gives it (an id of a record merged into
// another entry finds that entry), for the same key and budget.
func handleDetail(index Searcher, guard mcpdir.Guard, insight mcpdir.InsightRecorder, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := authenticate(w, r, guard, insight, mcpdir.DoorREST, logger)
		if !ok {
			return
		}
		id := strings.ToLower(r.PathValue("id"))
		if !mcpdir.IsUUID(id) {
			writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "the id is a UUID: the id field of a search result"))
			return
		}
		if !spend(w, r, guard, key, insight, mcpdir.DoorREST, logger) {
			return
		}
		e, ok := index.Get(id)
		if !ok {
			writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeNotFound, "no MCP server has id %s", id))
			return
		}
		writeJSON(w, http.StatusOK, detailResponse{Data: wire.NewDetail(e)})
	})
}
