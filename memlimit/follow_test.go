package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestFollow holds a live heap of 64 MiB and asks for 16 MiB of headroom:
// after a collection the runtime's heap goal is the live heap plus the
// headroom, not twice the live heap as by default; stopping puts the
// ceiling back.
func TestFollow(t *testing.T) {
	before := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	read := func(name string) int64 {
		s := []metrics.Sample{{Name: name}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64())
	}
	runtime.GC()
	if goal, heap := read("/gc/heap/goal:bytes"), read("/gc/heap/live:bytes"); goal < heap*19/10 {
		t.Fatalf("by default the heap goal is %d for %d live: want about twice", goal, heap)
	}

	const headroom, ceiling = 16 << 20, 1 << 40
	stop := Follow(ceiling, headroom)
	defer stop()
	runtime.GC()
	var limit, heap int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		// The finalizer that follows runs after the collection, in its
		// own goroutine.
		if limit, heap = debug.SetMemoryLimit(-1), read("/gc/heap/live:bytes"); limit == heap+headroom {
			break
		}
	}
	if limit != heap+headroom {
		t.Fatalf("the soft limit is %d, want the live heap %d plus %d", limit, heap, headroom)
	}
	runtime.GC()
	if goal, heap := read("/gc/heap/goal:bytes"), read("/gc/heap/live:bytes"); goal > heap+headroom+headroom/2 {
		t.Errorf("following, the heap goal is %d for %d live: want at most about %d", goal, heap, heap+headroom)
	}
	runtime.KeepAlive(live)

	stop()
	if limit := debug.SetMemoryLimit(-1); limit != ceiling {
		t.Errorf("stopped, the soft limit is %d, want the ceiling %d", limit, ceiling)
	}
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if limit := debug.SetMemoryLimit(-1); limit != ceiling {
		t.Errorf("a collection after stopping set the soft limit to %d", limit)
	}
}

// TestFollowUnderTheCeiling: the soft limit is never above the ceiling.
func TestFollowUnderTheCeiling(t *testing.T) {
	before := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	const ceiling = 512 << 20
	stop := Follow(ceiling, 1<<30)
	defer stop()
	if limit := debug.SetMemoryLimit(-1); limit != ceiling {
		t.Errorf("the soft limit is %d, want the ceiling %d", limit, ceiling)
	}
}
