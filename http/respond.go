package http

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/web"
	"github.com/mcpdir/mcpdir/wire"
)

// errorBody is every error response: {"error": {"code": "…", "message": "…"}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// statusOf maps error codes to HTTP statuses. The spec answers 401 for an
// exceeded rate limit, the same as for an invalid key.
var statusOf = map[string]int{
	mcpdir.ECodeMissingKeywords:  http.StatusBadRequest,
	mcpdir.ECodeInvalidKeywords:  http.StatusBadRequest,
	mcpdir.ECodeInvalidRequest:   http.StatusBadRequest,
	mcpdir.ECodeMissingKey:       http.StatusUnauthorized,
	mcpdir.ECodeInvalidKey:       http.StatusUnauthorized,
	mcpdir.ECodeExpiredKey:       http.StatusUnauthorized,
	mcpdir.ECodeRevokedKey:       http.StatusUnauthorized,
	mcpdir.ECodeRateLimited:      http.StatusUnauthorized,
	mcpdir.ECodeForbidden:        http.StatusForbidden,
	mcpdir.ECodeNotFound:         http.StatusNotFound,
	mcpdir.ECodeConflict:         http.StatusConflict,
	mcpdir.ECodeMethodNotAllowed: http.StatusMethodNotAllowed,
	mcpdir.ECodeTooLarge:         http.StatusRequestEntityTooLarge,
	mcpdir.ECodeURITooLong:       http.StatusRequestURITooLong,
	mcpdir.ECodeUnavailable:      http.StatusServiceUnavailable,
	mcpdir.ECodeInternal:         http.StatusInternalServerError,
}

// writeError answers with err's code and safe message; internal errors are
// logged in full and reported without detail.
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	code := mcpdir.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusBadRequest
	}
	if status == http.StatusInternalServerError && logger != nil {
		logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpdir"`)
	}
	body, err2 := wire.MarshalPlain(errorBody{errorDetail{Code: code, Message: mcpdir.ErrorMessage(err)}})
	if err2 != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	writeBody(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"error":{"code":"internal","message":"internal error"}}`)
	}
	writeBody(w, status, body)
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	// A length lets the server send the body as it is, without chunks.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// notFound answers a path nothing serves: a JSON error under /api/ (and
// without pages), a page for people elsewhere.
func notFound(pages *web.Pages) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pages != nil && !strings.HasPrefix(r.URL.Path, "/api/") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			pages.NotFound(w, r, "There is no page here.")
			return
		}
		writeError(w, r, nil, mcpdir.Errorf(mcpdir.ECodeNotFound, "no such endpoint: %s", r.URL.Path))
	})
}

func methodNotAllowed(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, r, nil, mcpdir.Errorf(mcpdir.ECodeMethodNotAllowed, "method %s is not allowed here: use %s", r.Method, allow))
	})
}
