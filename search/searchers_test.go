package search

import (
	"runtime"
	"sync"
	"testing"
)

// A searcher outlives the collections between searches: the pool keeps it,
// where a sync.Pool alone would leave it to the collector.
func TestASearcherOutlivesCollections(t *testing.T) {
	var p searcherPool
	s := p.Get()
	s.best = append(s.best, hit{doc: 1}) // scratch it grew
	p.Put(s)
	runtime.GC()
	runtime.GC()
	if got := p.Get(); got != s {
		t.Fatalf("after two collections a new searcher was made: the one put back was dropped")
	}
}

// No two searches hold one searcher at once.
func TestNoTwoSearchesShareASearcher(t *testing.T) {
	var p searcherPool
	var mu sync.Mutex
	held := map[*searcher]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				s := p.Get()
				mu.Lock()
				if held[s] {
					mu.Unlock()
					t.Error("a searcher in use was handed out again")
					return
				}
				held[s] = true
				mu.Unlock()
				if i%100 == 0 {
					runtime.GC() // empties the sync.Pool: Get goes to the kept ones
				}
				mu.Lock()
				delete(held, s)
				mu.Unlock()
				p.Put(s)
			}
		}()
	}
	wg.Wait()
}
