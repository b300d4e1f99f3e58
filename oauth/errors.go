package oauth

import (
	"encoding/json"
	"net/http"
)

// oauthError is an OAuth error response (RFC 6749 5.2, RFC 7591 3.2.2):
// a stable code in error and a sentence in error_description.
type oauthError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
	retryAfter  int    // seconds, for a 429
}

func (e *oauthError) Error() string { return e.Code + ": " + e.Description }

func errorf(status int, code, description string) *oauthError {
	return &oauthError{Status: status, Code: code, Description: description}
}

func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, &oauthError{Code: code, Description: description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"server_error","error_description":"internal error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	w.Write(body)
}
