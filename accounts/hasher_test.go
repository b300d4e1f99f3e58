package accounts_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir/accounts"
)

// Finding 2 of issue 33: hashes ran without bound (19 MiB each), so a burst
// of logins took gigabytes. The hasher runs at most its slots at once,
// queues a few more briefly, and refuses the rest with a BusyError.
func TestHasherBound(t *testing.T) {
	const slots, queue = 3, 5
	h := accounts.NewHasher(slots, queue, 300*time.Millisecond)
	var running, peak, ran, busy atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 60 {
		wg.Go(func() {
			<-start
			err := h.Run(context.Background(), func() {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(20 * time.Millisecond)
				running.Add(-1)
				ran.Add(1)
			})
			var b *accounts.BusyError
			switch {
			case errors.As(err, &b) && b.After > 0:
				busy.Add(1)
			case err != nil:
				t.Errorf("run: %v", err)
			}
		})
	}
	close(start)
	wg.Wait()
	t.Logf("peak %d at once, %d ran, %d busy", peak.Load(), ran.Load(), busy.Load())
	if peak.Load() > slots || ran.Load() < slots+queue || ran.Load()+busy.Load() != 60 || busy.Load() == 0 {
		t.Fatalf("peak %d (bound %d), ran %d, busy %d", peak.Load(), slots, ran.Load(), busy.Load())
	}
	// Real hashes too: never more than the bound.
	h = accounts.NewHasher(2, 100, 10*time.Second)
	running.Store(0)
	peak.Store(0)
	for range 8 {
		wg.Go(func() {
			if err := h.Run(context.Background(), func() {
				n := running.Add(1)
				if n > peak.Load() {
					peak.Store(n)
				}
				accounts.HashPassword("a long enough password")
				running.Add(-1)
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Fatalf("%d hashes at once, bound 2", peak.Load())
	}
}
