package gencache

import (
	"fmt"
	"testing"
)

func TestGenerationEmptiesTheCache(t *testing.T) {
	c := New[int](10, nil)
	c.Put(1, "a", 1)
	if v, ok := c.Get(1, []byte("a")); !ok || v != 1 {
		t.Fatalf("a at generation 1: %d, %v", v, ok)
	}
	if _, ok := c.Get(2, []byte("a")); ok {
		t.Fatal("a computed at generation 1 answered at generation 2")
	}
	c.Put(2, "a", 2)
	if v, ok := c.Get(2, []byte("a")); !ok || v != 2 {
		t.Fatalf("a at generation 2: %d, %v", v, ok)
	}
	// A caller that read generation 1 before the change neither gets nor
	// drops generation 2's values.
	if _, ok := c.Get(1, []byte("a")); ok {
		t.Fatal("a of generation 2 answered at generation 1")
	}
	if v, ok := c.Get(2, []byte("a")); !ok || v != 2 {
		t.Fatalf("a at generation 2, after a lookup at generation 1: %d, %v", v, ok)
	}
	if hits, misses := c.Lookups(); hits != 3 || misses != 2 {
		t.Errorf("%d hits and %d misses counted, want 3 and 2", hits, misses)
	}
	// A value computed at an older generation than the cache's is dropped.
	c.Put(2, "b", 2)
	c.Put(1, "c", 3)
	if _, ok := c.Get(2, []byte("c")); ok {
		t.Fatal("c, computed at generation 1, answered at generation 2")
	}
}

func TestBoundedByCost(t *testing.T) {
	c := New[string](100, func(s string) int { return len(s) })
	for i := range 1000 {
		c.Put(7, fmt.Sprint(i), "0123456789")
	}
	if n := c.Len(); n < 5 || n > 10 {
		t.Errorf("%d values of cost 10 kept under a bound of 100, want 5 to 10", n)
	}
	c.Put(7, "big", string(make([]byte, 51)))
	if _, ok := c.Get(7, []byte("big")); ok {
		t.Error("a value costing more than half the bound was kept")
	}
}

// A value used again is kept while values used once come and go.
func TestRecentlyUsedStays(t *testing.T) {
	c := New[int](8, nil)
	c.Put(1, "hot", 1)
	for i := range 100 {
		c.Put(1, fmt.Sprint(i), i)
		if _, ok := c.Get(1, []byte("hot")); !ok {
			t.Fatalf("hot dropped after %d other values", i+1)
		}
	}
	if n := c.Len(); n > 8 {
		t.Errorf("%d values kept, bound 8", n)
	}
}

func TestOffKeepsNothing(t *testing.T) {
	var nilCache *Cache[int]
	for _, c := range []*Cache[int]{New[int](0, nil), nilCache, {}} {
		c.Put(1, "a", 1)
		if _, ok := c.Get(1, []byte("a")); ok || c.Len() != 0 {
			t.Errorf("%+v kept a value", c)
		}
	}
}

// Concurrent lookups and puts across generations never answer a value of
// another generation (run under -race).
func TestConcurrentGenerations(t *testing.T) {
	c := New[uint64](64, nil)
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 2000 {
				gen := uint64(i / 100)
				key := fmt.Sprint(w, i%10)
				if v, ok := c.Get(gen, []byte(key)); ok && v != gen {
					t.Errorf("%s at generation %d: the value of generation %d", key, gen, v)
					return
				}
				c.Put(gen, key, gen)
			}
		}()
	}
	for range 4 {
		<-done
	}
}
