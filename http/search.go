package http

import (
	"log/slog"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/wire"
)

// searchResponse is the spec's envelope: data and count (the number of items
// in data), plus total (the entries that answer) and the keywords as
// understood. The handler assembles it from cached item encodings
// (encode.go); this type documents the shape and is what those encodings
// are tested against.
type searchResponse struct {
	Data     []wire.SearchItem `json:"data"`
	Count    int               `json:"count"`
	Total    int               `json:"total"`
	Keywords string            `json:"keywords"`
	Facets   *mcpdir.Facets    `json:"facets"`
}

// handleSearch serves GET /api/open/v1/search?keywords=…
func handleSearch(index Searcher, guard mcpdir.Guard, maxResults int, insight mcpdir.InsightRecorder, logger *slog.Logger) http.Handler {
	items := wire.NewEncodingCache(wire.EncodeSearchItemHead)
	facets := newFacetCache()
	buffers := sync.Pool{New: func() any { return new([]byte) }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := authenticate(w, r, guard, insight, mcpdir.DoorREST, logger)
		if !ok {
			return
		}
		query := r.URL.Query()
		keywords, err := validKeywords(query)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		filter, err := mcpdir.ParseFilter(query)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		if !spend(w, r, guard, key, insight, mcpdir.DoorREST, logger) {
			return
		}
		var keyBuf [128]byte
		gen, fkey := index.Generation(), mcpdir.Query{Text: keywords, Filter: filter}.AppendKey(keyBuf[:0])
		counted, cached := facets.Get(gen, fkey)
		res := index.Find(mcpdir.Query{Text: keywords, Limit: maxResults, Filter: filter, Facets: !cached})
		if !cached {
			counted = encodeFacets(res.Facets)
			facets.Put(gen, string(fkey), counted)
		}
		insight.Searched(mcpdir.DoorREST, keywords, max(res.Total, len(res.Hits)))
		buf := buffers.Get().(*[]byte)
		*buf = appendSearchResponse((*buf)[:0], items, res, keywords, counted)
		writeBody(w, http.StatusOK, *buf)
		buffers.Put(buf)
	})
}

// authenticate finds the request's key; false, with the error written (a
// refusal for the key counted at door), when there is none it may use.
func authenticate(w http.ResponseWriter, r *http.Request, guard mcpdir.Guard, insight mcpdir.InsightRecorder, door string, logger *slog.Logger) (*mcpdir.APIKey, bool) {
	key, err := guard.Authenticate(r.Context(), r.Header.Get("Authorization"))
	if err != nil {
		refused(insight, door, err)
		writeError(w, r, logger, err)
		return nil, false
	}
	return key, true
}

// refused counts a request of door refused for its key.
func refused(insight mcpdir.InsightRecorder, door string, err error) {
	if mcpdir.RefusedForKey(err) {
		insight.Refused(door)
	}
}

// spend spends a request of key's budget and sets the rate-limit headers;
// false, with the error written, when the request may not go on (over the
// budget, it is counted as limited at door).
func spend(w http.ResponseWriter, r *http.Request, guard mcpdir.Guard, key *mcpdir.APIKey, insight mcpdir.InsightRecorder, door string, logger *slog.Logger) bool {
	decision, err := guard.Spend(r.Context(), key)
	if err != nil {
		writeError(w, r, logger, err)
		return false
	}
	wire.SetRateLimitHeaders(w.Header(), decision)
	if !decision.Allowed {
		insight.Limited(door)
		writeError(w, r, logger, mcpdir.RateLimitedError(decision))
		return false
	}
	return true
}

// validKeywords returns the keywords parameter, or why it is not acceptable.
func validKeywords(query url.Values) (string, error) {
	values, ok := query["keywords"]
	if !ok || len(values) == 0 {
		return "", mcpdir.Errorf(mcpdir.ECodeMissingKeywords, "the keywords parameter is required, e.g. ?keywords=postgres")
	}
	if len(values) > 1 {
		return "", mcpdir.Errorf(mcpdir.ECodeInvalidKeywords, "give the keywords parameter once")
	}
	return mcpdir.ValidateKeywords(values[0])
}
