package mcpdir

import (
	"errors"
	"fmt"
)

// Error codes: stable strings that clients may rely on.
const (
	ECodeMissingKeywords  = "missing_keywords"
	ECodeInvalidKeywords  = "invalid_keywords"
	ECodeInvalidRequest   = "invalid_request"
	ECodeMissingKey       = "missing_key"
	ECodeInvalidKey       = "invalid_key"
	ECodeExpiredKey       = "expired_key"
	ECodeRevokedKey       = "revoked_key"
	ECodeForbidden        = "forbidden"
	ECodeRateLimited      = "rate_limited"
	ECodeNotFound         = "not_found"
	ECodeConflict         = "conflict"
	ECodeTooLarge         = "request_too_large"
	ECodeURITooLong       = "uri_too_long"
	ECodeMethodNotAllowed = "method_not_allowed"
	ECodeUnavailable      = "unavailable"
	ECodeInternal         = "internal"
)

// Error is an error a client may see: a stable code and a message that is
// safe to show. Anything that is not an *Error is reported as "internal".
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, or
// ECodeInternal when there is none.
func ErrorCode(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ECodeInternal
}

// ErrorMessage returns the client-safe message of err: the message of an
// *Error, or a generic one that leaks nothing of internals.
func ErrorMessage(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "internal error"
}

// Authentication errors, shared by every interface.
var (
	ErrMissingKey = &Error{ECodeMissingKey, "an API key is required: send it as 'Authorization: Bearer <key>'"}
	ErrInvalidKey = &Error{ECodeInvalidKey, "the API key is not valid"}
	ErrExpiredKey = &Error{ECodeExpiredKey, "the API key has expired: create a new one"}
	ErrRevokedKey = &Error{ECodeRevokedKey, "the API key has been revoked: create a new one"}
	// ErrDisabledKey is a key whose account the operator disabled: it
	// shares revoked_key's code, and works again if the account is enabled.
	ErrDisabledKey = &Error{ECodeRevokedKey, "the account that owns this API key is disabled"}
	ErrNotFound    = &Error{ECodeNotFound, "not found"}
)
