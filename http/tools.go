package http

import (
	"log/slog"
	"net/http"
	"strconv"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// ToolSearcher finds tools across the directory's servers
// (toolsearch.Index).
type ToolSearcher interface {
	FindTools(q mcpdir.Query) mcpdir.ToolResult
}

// Tool search's page: the default, and the bound.
const (
	defaultToolLimit = 20
	maxToolLimit     = 100
)

// toolsResponse is GET /api/open/v1/tools/search's answer.
type toolsResponse struct {
	Data     []wire.ToolItem `json:"data"`
	Count    int             `json:"count"`
	Total    int             `json:"total"`
	Keywords string          `json:"keywords"`
}

// handleToolSearch serves GET /api/open/v1/tools/search?keywords=…&limit=…&warnings=none:
// the same key, budget, bounds and errors as a server search.
func handleToolSearch(tools ToolSearcher, guard mcpdir.Guard, insight mcpdir.InsightRecorder, logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := authenticate(w, r, guard, insight, mcpdir.DoorTools, logger)
		if !ok {
			return
		}
		query := r.URL.Query()
		keywords, err := validKeywords(query)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		limit := defaultToolLimit
		if s := query.Get("limit"); s != "" {
			if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > maxToolLimit {
				writeError(w, r, logger, mcpdir.Errorf(mcpdir.ECodeInvalidRequest, "limit must be a whole number from 1 to %d", maxToolLimit))
				return
			}
		}
		// Of the server filters, only warnings=none (or safe=true): tools
		// of servers whose tools raised no warning.
		filter, err := mcpdir.ParseFilter(map[string][]string{"warnings": query["warnings"], "safe": query["safe"]})
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		if !spend(w, r, guard, key, insight, mcpdir.DoorTools, logger) {
			return
		}
		res := tools.FindTools(mcpdir.Query{Text: keywords, Limit: limit, Filter: filter})
		insight.Searched(mcpdir.DoorTools, keywords, max(res.Total, len(res.Hits)))
		out := toolsResponse{Data: make([]wire.ToolItem, 0, len(res.Hits)), Total: max(res.Total, len(res.Hits)), Keywords: keywords}
		for _, h := range res.Hits {
			out.Data = append(out.Data, wire.NewToolItem(h))
		}
		out.Count = len(out.Data)
		writeJSON(w, http.StatusOK, out)
	})
}
