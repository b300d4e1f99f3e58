package mcpdir

import "context"

// RequestInfo is what a request's handlers learn that its access log line
// reports. The HTTP layer puts one in each request's context; whoever
// authenticates the request fills in the key.
type RequestInfo struct {
	ID        string // the request id, answered in X-Request-Id
	KeyPrefix string // the public prefix of the API key, never the key
	// ClientAddr is the client's address (from X-Forwarded-For behind a
	// trusted proxy): what per-address budgets of the authenticators count.
	ClientAddr string
}

type requestInfoKey struct{}

// WithRequestInfo returns ctx carrying info.
func WithRequestInfo(ctx context.Context, info *RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, info)
}

// RequestInfoFrom returns the request's info, or nil outside a request.
func RequestInfoFrom(ctx context.Context) *RequestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*RequestInfo)
	return info
}
