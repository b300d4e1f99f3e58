package accounts

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// Hasher bounds the password hashing of sign-ups, logins and anything
// else that hashes a password: each argon2id hash takes argonMemory (19
// MiB) for its length, so hashes running without bound let a burst of
// logins take the server's memory. At most slots hashes run at once; up
// to queue more wait for a slot, each for at most wait; past that an
// attempt is refused with a BusyError (429 with Retry-After), its password
// unchecked.
type Hasher struct {
	slots   chan struct{}
	queue   int64
	wait    time.Duration
	waiting atomic.Int64
}

// NewHasher returns a Hasher running slots hashes at once, with queue
// more waiting at most wait each.
func NewHasher(slots, queue int, wait time.Duration) *Hasher {
	return &Hasher{slots: make(chan struct{}, max(1, slots)), queue: int64(max(0, queue)), wait: wait}
}

// Hashing bounds sized to the machine: a hash uses one core, so more at
// once than cores only takes more memory, not less time.
var (
	hashSlots = max(2, runtime.GOMAXPROCS(0))
	hashQueue = 16 * hashSlots
	hashWait  = 2 * time.Second
)

// defaultHasher is shared by every Service of the process.
var defaultHasher = NewHasher(hashSlots, hashQueue, hashWait)

// BusyError says every hashing slot is taken and the queue is full (or
// the wait ran out): try again After.
type BusyError struct{ After time.Duration }

func (e *BusyError) Error() string {
	return fmt.Sprintf("too many sign-ins at once: try again in %s", e.After.Round(time.Second))
}

// busyRetry is the Retry-After of a BusyError: a queue of hashQueue
// drains in well under a second on any machine that hashes in ~30 ms.
const busyRetry = time.Second

// run runs f in a hashing slot, waiting for one as the bounds allow.
func (h *Hasher) run(ctx context.Context, f func()) error {
	select {
	case h.slots <- struct{}{}:
	default:
		if h.waiting.Add(1) > h.queue {
			h.waiting.Add(-1)
			return &BusyError{After: busyRetry}
		}
		t := time.NewTimer(h.wait)
		select {
		case h.slots <- struct{}{}:
			t.Stop()
			h.waiting.Add(-1)
		case <-t.C:
			h.waiting.Add(-1)
			return &BusyError{After: busyRetry}
		case <-ctx.Done():
			t.Stop()
			h.waiting.Add(-1)
			return &BusyError{After: busyRetry}
		}
	}
	defer func() { <-h.slots }()
	f()
	return nil
}

// Hash is HashPassword in a hashing slot.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	var out string
	err := h.run(ctx, func() { out = HashPassword(password) })
	return out, err
}

// Verify is VerifyPassword in a hashing slot.
func (h *Hasher) Verify(ctx context.Context, encoded, password string) (bool, error) {
	var ok bool
	err := h.run(ctx, func() { ok = VerifyPassword(encoded, password) })
	return ok, err
}
