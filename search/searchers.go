package search

import (
	"runtime"
	"sync"
)

// searcherPool keeps searchers for the searches to come. A searcher is
// about 1.4 MB of scratch space (its window arrays and sense), which a
// sync.Pool alone lets the collector free every other cycle: under a load
// of new queries the server made fresh ones after nearly every collection,
// and their arrays were 6% of the bytes it allocated (issue 36). The
// sync.Pool stays the way in, for it hands a processor back the searcher
// it used last, whose arrays are in that processor's cache; beside it, all
// keeps the first searchers made alive, one a processor and two more, and
// a search the pool has none for takes one of those that is idle.
type searcherPool struct {
	pool sync.Pool
	mu   sync.Mutex
	all  []*searcher
}

// Get returns an idle searcher, or a new one.
func (p *searcherPool) Get() *searcher {
	for {
		s, _ := p.pool.Get().(*searcher)
		if s == nil {
			break
		}
		// The pool may hold a searcher that a search took from all
		// since: it is idle only if no one has it.
		if s.idle.CompareAndSwap(true, false) {
			return s
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.all {
		if s.idle.CompareAndSwap(true, false) {
			return s
		}
	}
	s := &searcher{}
	if len(p.all) < runtime.GOMAXPROCS(0)+2 {
		p.all = append(p.all, s)
	}
	return s
}

// Put makes s idle, for a later Get.
func (p *searcherPool) Put(s *searcher) {
	s.idle.Store(true)
	p.pool.Put(s)
}
