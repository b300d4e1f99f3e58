package accounts

import "context"

// Run exposes the hashing slots to the tests.
func (h *Hasher) Run(ctx context.Context, f func()) error { return h.run(ctx, f) }
