package memory

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLimiterRollingWindow(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := NewLimiter(nil)
	l.now = func() time.Time { return now }
	ctx := context.Background()
	for i := range 3 {
		d, _ := l.Allow(ctx, "k", 3, time.Hour)
		if !d.Allowed || d.Remaining != 2-i {
			t.Fatalf("request %d: %+v", i, d)
		}
		now = now.Add(10 * time.Minute)
	}
	d, _ := l.Allow(ctx, "k", 3, time.Hour)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("4th request in the hour passed: %+v", d)
	}
	// The first request was at t0; now is t0+30m: it leaves the window at t0+60m.
	if d.RetryAfter != 30*time.Minute || d.Reset != 30*time.Minute {
		t.Fatalf("retry after %v, reset %v; want 30m", d.RetryAfter, d.Reset)
	}
	// Rolling, not fixed: at t0+60m exactly one slot frees up, not three.
	now = now.Add(30 * time.Minute)
	if d, _ := l.Allow(ctx, "k", 3, time.Hour); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("slot freed by the first request not reused: %+v", d)
	}
	if d, _ := l.Allow(ctx, "k", 3, time.Hour); d.Allowed {
		t.Fatalf("more than 3 in a rolling hour: %+v", d)
	}
	// Other keys have their own budget.
	if d, _ := l.Allow(ctx, "other", 3, time.Hour); !d.Allowed {
		t.Fatal("budgets leak across keys")
	}
}

func TestLimiterConcurrentBurstExact(t *testing.T) {
	l := NewLimiter(nil)
	var passed atomic.Int32
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() {
			if d, _ := l.Allow(context.Background(), "k", 20, time.Hour); d.Allowed {
				passed.Add(1)
			}
		})
	}
	wg.Wait()
	if passed.Load() != 20 {
		t.Fatalf("%d of 200 concurrent requests passed, want exactly 20", passed.Load())
	}
}

func TestLimiterSweep(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := NewLimiter(nil)
	l.now = func() time.Time { return now }
	l.Allow(context.Background(), "old", 5, time.Hour)
	now = now.Add(2 * time.Hour)
	l.Allow(context.Background(), "new", 5, time.Hour)
	l.Sweep(time.Hour)
	if _, ok := l.logs["old"]; ok {
		t.Fatal("idle key not swept")
	}
	if _, ok := l.logs["new"]; !ok {
		t.Fatal("active key swept")
	}
}

// Reserve counts as Allow does; undo takes the request back, once.
func TestLimiterReserveUndo(t *testing.T) {
	ctx := context.Background()
	l := NewLimiter(nil)
	var undos []func()
	for range 3 {
		d, undo, err := l.Reserve(ctx, "k", 3, time.Hour)
		if err != nil || !d.Allowed {
			t.Fatalf("reserve: %+v %v", d, err)
		}
		undos = append(undos, undo)
	}
	d, refused, _ := l.Reserve(ctx, "k", 3, time.Hour)
	if d.Allowed {
		t.Fatal("a fourth of three")
	}
	refused() // undoing a refused request takes nothing back
	undos[1]()
	undos[1]() // once
	if d, _ := l.Allow(ctx, "k", 3, time.Hour); !d.Allowed {
		t.Fatal("an undone request still counted")
	}
	if d, _ := l.Allow(ctx, "k", 3, time.Hour); d.Allowed {
		t.Fatal("undo took back more than one request")
	}
}
