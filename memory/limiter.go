// Package memory holds the in-process implementations used by the embedded
// default: a rate limiter for a single server.
package memory

import (
	"context"
	"sync"
	"time"

	"github.com/mcpdir/mcpdir"
)

// Limiter is an exact rolling-window rate limiter: it keeps the time of each
// counted request per key (at most limit of them), so no window of the given
// length ever holds more than limit requests.
type Limiter struct {
	now func() time.Time

	mu    sync.Mutex
	logs  map[string][]time.Time // per key, oldest first
	dirty map[string]bool        // keys counted since the last TakeChanged
}

// NewLimiter returns an empty limiter reading the time from now (nil:
// time.Now).
func NewLimiter(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{now: now, logs: map[string][]time.Time{}, dirty: map[string]bool{}}
}

var _ mcpdir.RateReserver = (*Limiter)(nil)

// Allow implements mcpdir.RateLimiter.
func (l *Limiter) Allow(_ context.Context, key string, limit int, window time.Duration) (mcpdir.RateDecision, error) {
	d, _ := l.allow(key, limit, window)
	return d, nil
}

// Reserve implements mcpdir.RateReserver: undo removes the request it
// counted from the key's window.
func (l *Limiter) Reserve(_ context.Context, key string, limit int, window time.Duration) (mcpdir.RateDecision, func(), error) {
	d, at := l.allow(key, limit, window)
	if !d.Allowed {
		return d, func() {}, nil
	}
	var once sync.Once
	return d, func() { once.Do(func() { l.remove(key, at) }) }, nil
}

// remove takes one request counted at at out of key's window.
func (l *Limiter) remove(key string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	log := l.logs[key]
	for i := len(log) - 1; i >= 0; i-- {
		if log[i].Equal(at) {
			l.logs[key] = append(log[:i:i], log[i+1:]...)
			l.dirty[key] = true
			return
		}
	}
}

// allow counts a request for key when it fits, and says when it counted it.
func (l *Limiter) allow(key string, limit int, window time.Duration) (mcpdir.RateDecision, time.Time) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	log := l.logs[key]
	cut := 0
	for cut < len(log) && !log[cut].After(now.Add(-window)) {
		cut++
	}
	log = log[cut:]
	d := mcpdir.RateDecision{Limit: limit}
	if len(log) < limit {
		log = append(log, now)
		l.dirty[key] = true
		d.Allowed = true
		d.Remaining = limit - len(log)
	} else if len(log) > 0 {
		d.RetryAfter = log[0].Add(window).Sub(now)
	}
	if len(log) > 0 {
		d.Reset = log[0].Add(window).Sub(now)
	}
	l.logs[key] = log
	return d, now
}

// Sweep forgets keys with no request in the last window, bounding memory.
func (l *Limiter) Sweep(window time.Duration) {
	cutoff := l.now().Add(-window)
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, log := range l.logs {
		if len(log) == 0 || !log[len(log)-1].After(cutoff) {
			delete(l.logs, k)
		}
	}
}

// Peek says whether a request for key would pass now, without counting one.
func (l *Limiter) Peek(_ context.Context, key string, limit int, window time.Duration) mcpdir.RateDecision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	n, oldest := 0, time.Time{}
	for _, t := range l.logs[key] {
		if t.After(now.Add(-window)) {
			if n == 0 {
				oldest = t
			}
			n++
		}
	}
	d := mcpdir.RateDecision{Limit: limit, Allowed: n < limit, Remaining: max(0, limit-n)}
	if !d.Allowed {
		d.RetryAfter = oldest.Add(window).Sub(now)
	}
	return d
}

// TakeChanged returns the windows of the keys that counted a request since
// the last call (a copy), for a store to keep them across restarts.
func (l *Limiter) TakeChanged() map[string][]time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string][]time.Time, len(l.dirty))
	for k := range l.dirty {
		out[k] = append([]time.Time(nil), l.logs[k]...)
	}
	clear(l.dirty)
	return out
}

// Unsaved marks the windows TakeChanged gave as changed again, after
// writing them failed: the next TakeChanged gives them (as they are then).
func (l *Limiter) Unsaved(logs map[string][]time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range logs {
		l.dirty[k] = true
	}
}

// Restore puts back windows kept before a restart (times oldest first);
// requests older than a window leave it at the next count as usual.
func (l *Limiter) Restore(logs map[string][]time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, log := range logs {
		l.logs[k] = append([]time.Time(nil), log...)
	}
}
