package redis_test

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/memory"
	"github.com/mcpdir/mcpdir/redis"
	"github.com/mcpdir/mcpdir/storetest"
)

func newLimiter(t *testing.T, url, prefix string, logs io.Writer) *redis.Limiter {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := redis.NewLimiter(ctx, url, memory.NewLimiter(nil), slog.New(slog.NewTextHandler(logs, nil)),
		redis.Options{Prefix: prefix, ProbeEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); l.Close() })
	return l
}

func testPrefix() string { return "mcpdir-test:" + rand.Text()[:10] + ":" }

// Three replicas, 200 requests at once, a limit of 20: exactly 20 pass.
func TestExactAcrossReplicas(t *testing.T) {
	url := storetest.RedisURL(t)
	prefix := testPrefix()
	replicas := []*redis.Limiter{newLimiter(t, url, prefix, io.Discard), newLimiter(t, url, prefix, io.Discard), newLimiter(t, url, prefix, io.Discard)}
	var allowed atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 200 {
		wg.Go(func() {
			<-start
			d, err := replicas[i%3].Allow(context.Background(), "k", 20, time.Hour)
			if err != nil {
				t.Error(err)
			}
			if d.Allowed {
				allowed.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if n := allowed.Load(); n != 20 {
		t.Fatalf("%d of 200 passed, want exactly 20", n)
	}
	for _, r := range replicas {
		if r.Status() != nil {
			t.Fatalf("a burst was taken for an outage: %v", r.Status())
		}
	}
	d, _ := replicas[0].Allow(context.Background(), "k", 20, time.Hour)
	if d.Allowed || d.Remaining != 0 || d.RetryAfter <= 59*time.Minute || d.RetryAfter > time.Hour {
		t.Fatalf("the 201st: %+v", d)
	}
	if d, _ := replicas[1].Allow(context.Background(), "other", 20, time.Hour); !d.Allowed || d.Remaining != 19 {
		t.Fatalf("another key: %+v", d)
	}
}

// The window rolls: a slot frees when the request that took it is a
// window old, not all at once.
func TestRollingWindow(t *testing.T) {
	l := newLimiter(t, storetest.RedisURL(t), testPrefix(), io.Discard)
	ctx := context.Background()
	const window = 600 * time.Millisecond
	l.Allow(ctx, "k", 2, window)
	time.Sleep(300 * time.Millisecond)
	l.Allow(ctx, "k", 2, window)
	d, _ := l.Allow(ctx, "k", 2, window)
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 300*time.Millisecond {
		t.Fatalf("third in the window: %+v", d)
	}
	time.Sleep(d.RetryAfter + 20*time.Millisecond)
	if d, _ := l.Allow(ctx, "k", 2, window); !d.Allowed {
		t.Fatalf("the first slot did not free: %+v", d)
	}
	if d, _ := l.Allow(ctx, "k", 2, window); d.Allowed {
		t.Fatalf("two slots freed at once: %+v", d)
	}
}

// Redis cut off: the limiter counts in process (the limit still holds per
// replica), says so once in the log and in Status, and returns to Redis
// when it is back.
func TestRedisOutage(t *testing.T) {
	url := storetest.RedisURL(t)
	proxy := storetest.NewProxy(t, strings.TrimSuffix(strings.TrimPrefix(url, "redis://"), "/0"))
	var logs syncBuffer
	l := newLimiter(t, "redis://"+proxy.Addr+"/0", testPrefix(), &logs)
	ctx := context.Background()
	if d, err := l.Allow(ctx, "k", 3, time.Hour); err != nil || !d.Allowed || l.Status() != nil {
		t.Fatalf("through Redis: %+v %v %v", d, err, l.Status())
	}
	proxy.Cut()
	allowed := 0
	for range 10 {
		d, err := l.Allow(ctx, "k", 3, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		}
	}
	if allowed != 3 || l.Status() == nil {
		t.Fatalf("during the outage %d of 10 passed (want the limit, 3), status %v", allowed, l.Status())
	}
	if n := strings.Count(logs.String(), "redis unreachable"); n != 1 {
		t.Errorf("the outage was logged %d times:\n%s", n, logs.String())
	}
	proxy.Restore()
	deadline := time.Now().Add(5 * time.Second)
	for l.Status() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the limiter did not return to Redis")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Shared again: the budget is Redis's (1 of 3 spent before the cut).
	if d, _ := l.Allow(ctx, "k", 3, time.Hour); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("after the outage: %+v", d)
	}
	if !strings.Contains(logs.String(), "redis is back") {
		t.Errorf("the recovery was not logged:\n%s", logs.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// BenchmarkAllow measures, side by side in one run, the latency a request
// pays for its budget: in process, and shared through Redis (the Lua
// script, one round trip on loopback). It reports p50 and p99.
func BenchmarkAllow(b *testing.B) {
	url := storetest.RedisURL(b)
	shared, err := redis.NewLimiter(context.Background(), url, memory.NewLimiter(nil), slog.New(slog.DiscardHandler), redis.Options{Prefix: testPrefix()})
	if err != nil {
		b.Fatal(err)
	}
	defer shared.Close()
	for _, c := range []struct {
		name string
		l    interface {
			Allow(context.Context, string, int, time.Duration) (mcpdir.RateDecision, error)
		}
	}{{"memory", memory.NewLimiter(nil)}, {"redis", shared}} {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				i++
				start := time.Now()
				// 20 per hour, as a default key, over 1,000 keys.
				if _, err := c.l.Allow(context.Background(), "k"+strconv.Itoa(i%1000), 20, time.Hour); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// Peek counts without spending and, once a budget is spent, says when it
// frees a request (a throttled login says "try again in …" with it).
func TestPeekSaysWhenABudgetFrees(t *testing.T) {
	l := newLimiter(t, storetest.RedisURL(t), testPrefix(), io.Discard)
	ctx := context.Background()
	const window = time.Minute
	if d := l.Peek(ctx, "k", 2, window); !d.Allowed || d.Remaining != 2 || d.RetryAfter != 0 {
		t.Fatalf("an unused key: %+v", d)
	}
	l.Allow(ctx, "k", 2, window)
	l.Allow(ctx, "k", 2, window)
	d := l.Peek(ctx, "k", 2, window)
	if d.Allowed || d.Remaining != 0 || d.RetryAfter <= window-5*time.Second || d.RetryAfter > window {
		t.Fatalf("a spent key: %+v, want a retry within the minute", d)
	}
	if again := l.Peek(ctx, "k", 2, window); again.Remaining != 0 {
		t.Fatalf("peeking spent the budget: %+v", again)
	}
}

// Windows copied in (from the embedded server, by mcpdir migrate) are
// counted by the Limiter as its own; copied twice, once; older than the
// window, not at all.
func TestCopyWindows(t *testing.T) {
	url := storetest.RedisURL(t)
	ctx := context.Background()
	key := "copied-" + rand.Text()[:10]
	now := time.Now()
	windows := map[string][]time.Time{key: {now.Add(-2 * time.Hour), now.Add(-30 * time.Minute), now.Add(-time.Minute)}}
	for range 2 {
		if n, err := redis.CopyWindows(ctx, url, windows, time.Hour); err != nil || n != 1 {
			t.Fatalf("copy: %d %v", n, err)
		}
	}
	l := newLimiter(t, url, redis.DefaultPrefix, io.Discard)
	if d := l.Peek(ctx, key, 5, time.Hour); d.Remaining != 3 {
		t.Fatalf("after the copy: %+v, want 2 of 5 spent", d)
	}
	if _, err := redis.CopyWindows(ctx, "redis://127.0.0.1:1/0", nil, time.Hour); err == nil {
		t.Fatal("no Redis there, and no error")
	}
}

// Reserve counts in Redis as Allow does, on every replica; undo takes the
// request back.
func TestReserveUndo(t *testing.T) {
	url := storetest.RedisURL(t)
	prefix := testPrefix()
	a, b := newLimiter(t, url, prefix, io.Discard), newLimiter(t, url, prefix, io.Discard)
	ctx := context.Background()
	_, undo, err := a.Reserve(ctx, "k", 2, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := b.Allow(ctx, "k", 2, time.Hour); !d.Allowed {
		t.Fatal("the second of two")
	}
	if d, _ := b.Allow(ctx, "k", 2, time.Hour); d.Allowed {
		t.Fatal("a third of two")
	}
	undo()
	undo()
	if d, _ := b.Allow(ctx, "k", 2, time.Hour); !d.Allowed {
		t.Fatal("an undone request still counted")
	}
	if d, _ := b.Allow(ctx, "k", 2, time.Hour); d.Allowed {
		t.Fatal("undo took back more than one")
	}
}
