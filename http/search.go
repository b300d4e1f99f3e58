package http

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
)

// searchResponse is the spec's envelope: data and count (the number of items
// in data), plus total (all matches) and the keywords as understood. The
// handler assembles it from cached item encodings (encode.go); this type
// documents the shape and is what those encodings are tested against.
type searchResponse struct {
	Data     []mcpdir.SearchItem `json:"data"`
	Count    int                 `json:"count"`
	Total    int                 `json:"total"`
	Keywords string              `json:"keywords"`
}

// handleSearch serves GET /api/open/v1/search?keywords=…
func handleSearch(index Searcher, guard Guard, maxResults int, logger *slog.Logger) http.Handler {
	var items itemCache
	buffers := sync.Pool{New: func() any { return new([]byte) }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := guard.Authenticate(r.Context(), r.Header.Get("Authorization"))
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		keywords, err := validKeywords(r)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		decision, err := guard.Spend(r.Context(), key)
		if err != nil {
			writeError(w, r, logger, err)
			return
		}
		SetRateLimitHeaders(w.Header(), decision)
		if !decision.Allowed {
			writeError(w, r, logger, RateLimitedError(decision))
			return
		}
		buf := buffers.Get().(*[]byte)
		*buf = items.appendSearchResponse((*buf)[:0], index.Search(keywords, maxResults), keywords)
		writeBody(w, http.StatusOK, *buf)
		buffers.Put(buf)
	})
}

// RateLimitedError says that the key's budget is spent and when to retry.
func RateLimitedError(d mcpdir.RateDecision) error {
	return mcpdir.Errorf(mcpdir.ECodeRateLimited, "rate limit of %d requests per hour exceeded: retry in %d seconds", d.Limit, max(1, ceilSeconds(d.RetryAfter)))
}

// validKeywords returns the keywords parameter, or why it is not acceptable.
func validKeywords(r *http.Request) (string, error) {
	values, ok := r.URL.Query()["keywords"]
	if !ok || len(values) == 0 {
		return "", mcpdir.Errorf(mcpdir.ECodeMissingKeywords, "the keywords parameter is required, e.g. ?keywords=postgres")
	}
	if len(values) > 1 {
		return "", mcpdir.Errorf(mcpdir.ECodeInvalidKeywords, "give the keywords parameter once")
	}
	return ValidateKeywords(values[0])
}

// ValidateKeywords checks free-text keywords from any interface: valid UTF-8,
// no control characters, not blank, at most MaxKeywordsBytes.
func ValidateKeywords(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", mcpdir.Errorf(mcpdir.ECodeInvalidKeywords, "keywords must be valid UTF-8")
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", mcpdir.Errorf(mcpdir.ECodeInvalidKeywords, "keywords must not contain control characters")
	}
	if len(s) > MaxKeywordsBytes {
		return "", mcpdir.Errorf(mcpdir.ECodeInvalidKeywords, "keywords must be at most %d bytes (got %d)", MaxKeywordsBytes, len(s))
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", mcpdir.Errorf(mcpdir.ECodeMissingKeywords, "keywords must not be blank, e.g. ?keywords=postgres")
	}
	return s, nil
}
