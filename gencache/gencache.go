// Package gencache keeps values computed from something that changes as a
// whole, for one generation of it: a search index's analysis of query
// words, its results, the answers encoded from them. Any change to the
// source moves its generation on, and the first use at the new generation
// empties the cache, so a cached value is exactly what computing it again
// would give.
//
// A cache is an approximate LRU bounded by the total cost of its values
// (one a value, or what a cost function says, such as a length in bytes):
// values are kept in two maps; a lookup that hits the older one moves the
// value to the newer, and when the newer holds half the bound the older is
// dropped. A lookup is a map access under a mutex, and allocates nothing.
package gencache

import "sync"

// Cache keeps values by string key for one generation. The zero value and
// a nil *Cache keep nothing.
type Cache[V any] struct {
	limit int
	cost  func(V) int

	mu           sync.Mutex
	gen          uint64
	cur, old     map[string]V
	curCost      int
	hits, misses uint64
}

// New returns a cache whose values' costs add up to at most limit (0:
// nothing is kept); cost nil counts each value as one.
func New[V any](limit int, cost func(V) int) *Cache[V] {
	return &Cache[V]{limit: max(limit, 0), cost: cost}
}

// Get returns the value cached for key at generation gen.
func (c *Cache[V]) Get(gen uint64, key []byte) (V, bool) {
	var zero V
	if c == nil || c.limit == 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		c.moveOn(gen)
		c.misses++
		return zero, false
	}
	if v, ok := c.cur[string(key)]; ok {
		c.hits++
		return v, true
	}
	v, ok := c.old[string(key)]
	if ok {
		c.hits++
		c.putLocked(string(key), v)
	} else {
		c.misses++
	}
	return v, ok
}

// Put caches v for key, computed at generation gen or later (read the
// generation first, then compute). A value of an older generation than
// the cache has seen is dropped.
func (c *Cache[V]) Put(gen uint64, key string, v V) {
	if c == nil || c.limit == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveOn(gen)
	if gen == c.gen {
		c.putLocked(key, v)
	}
}

// On reports whether the cache keeps anything.
func (c *Cache[V]) On() bool { return c != nil && c.limit > 0 }

// Lookups returns how many lookups found a value, and how many did not.
func (c *Cache[V]) Lookups() (hits, misses uint64) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Len returns how many values are cached.
func (c *Cache[V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}

// moveOn empties the cache for a newer generation; generations only move
// on, so an older one (a caller that read it before a change) changes
// nothing.
func (c *Cache[V]) moveOn(gen uint64) {
	if gen > c.gen {
		c.gen, c.cur, c.old, c.curCost = gen, nil, nil, 0
	}
}

func (c *Cache[V]) costOf(v V) int {
	if c.cost == nil {
		return 1
	}
	return c.cost(v)
}

func (c *Cache[V]) putLocked(key string, v V) {
	cost := c.costOf(v)
	if 2*cost > c.limit {
		return // it would evict everything else
	}
	if 2*(c.curCost+cost) > c.limit {
		c.old, c.cur, c.curCost = c.cur, nil, 0
	}
	if c.cur == nil {
		c.cur = make(map[string]V)
	}
	if prev, ok := c.cur[key]; ok {
		c.curCost -= c.costOf(prev)
	}
	c.cur[key] = v
	c.curCost += cost
}
