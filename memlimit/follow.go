package memlimit

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Headroom is how far past the live heap the heap may grow between
// collections once the live heap is large. The runtime's default lets it
// grow by as much as is live (GOGC=100): a replica holding 100 times the
// packages corpus, 1.3 GB live, peaked at 2.67 GB without a limit, and at
// 1.81 GB with this headroom, its index built in a sixth more time (issue
// 36). Below Headroom live, the default is the tighter bound and stands.
const Headroom = 256 << 20

// Follow keeps the runtime's soft limit at the live heap plus headroom,
// and never above ceiling (the limit Set applied; 0 or less: none), as
// the live heap changes: it is read after every collection. Stop puts the
// ceiling back. A limit set by the operator (GOMEMLIMIT) is left alone: call
// Follow only when Set applied one, or the runtime has none.
func Follow(ceiling, headroom int64) (stop func()) {
	if ceiling <= 0 {
		ceiling = math.MaxInt64
	}
	f := &follower{ceiling: ceiling, headroom: headroom, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.follow()
	f.arm()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped = true
		debug.SetMemoryLimit(ceiling)
	}
}

type follower struct {
	ceiling, headroom int64
	mu                sync.Mutex
	stopped           bool
	sample            []metrics.Sample // under mu
}

// sentinel is garbage made to learn when a collection has run: its
// finalizer runs after the first collection that finds it unreachable.
type sentinel struct{ _ *int }

// arm makes a sentinel whose finalizer follows the live heap and arms the
// next.
func (f *follower) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if f.follow() {
			f.arm()
		}
	})
}

// follow sets the soft limit from the live heap as the last collection
// found it; false once stopped.
func (f *follower) follow() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	metrics.Read(f.sample)
	if f.sample[0].Value.Kind() != metrics.KindUint64 { // a runtime that does not say: the ceiling
		debug.SetMemoryLimit(f.ceiling)
		return false
	}
	live := int64(f.sample[0].Value.Uint64())
	debug.SetMemoryLimit(min(f.ceiling, live+f.headroom))
	return true
}
