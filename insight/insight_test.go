package insight

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// memStore keeps what was added, summed as a store would.
type memStore struct {
	mu      sync.Mutex
	fail    bool
	batches []mcpdir.InsightBatch
}

func (m *memStore) AddInsights(_ context.Context, b mcpdir.InsightBatch) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errors.New("down")
	}
	m.batches = append(m.batches, b)
	return nil
}

func (m *memStore) ReadInsights(context.Context, time.Time, int) (mcpdir.Insights, error) {
	return mcpdir.Insights{}, nil
}
func (m *memStore) PruneInsights(context.Context, time.Time) error { return nil }

// all is every batch added, merged into one.
func (m *memStore) all() mcpdir.InsightBatch {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b mcpdir.InsightBatch
	for _, x := range m.batches {
		b.Buckets = append(b.Buckets, x.Buckets...)
		b.Queries = append(b.Queries, x.Queries...)
		b.Keys = append(b.Keys, x.Keys...)
	}
	return b.Merged()
}

func TestNormalise(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	for in, want := range map[string]string{
		"Postgres":                       "postgres",
		"  GitHub   Issues\t":            "github issues",
		"already fine":                   "already fine",
		"ÄRGER über\u00a0Kosten":         "ärger über kosten",
		"a\nb":                           "a b",
		"":                               "",
		long:                             strings.Repeat("é", 100),
		strings.Repeat("a", 199) + "é":   strings.Repeat("a", 199),
		strings.Repeat("a", 199) + " bc": strings.Repeat("a", 199),
	} {
		if got := Normalise(in); got != want {
			t.Errorf("Normalise(%q) = %q, want %q", in, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Normalise("github issues") }); n != 0 {
		t.Errorf("a normalised query allocates %v times", n)
	}
}

func TestFlush(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 59, 59, 0, time.UTC)
	store := &memStore{}
	r := New(store, Options{Now: func() time.Time { return now }})
	r.Searched(mcpdir.DoorREST, "Postgres", 3)
	r.Searched(mcpdir.DoorREST, "postgres ", 0)
	r.Searched(mcpdir.DoorMCP, "zxqv  plorbnik", 0)
	r.Limited(mcpdir.DoorREST)
	r.Refused(mcpdir.DoorMCP)
	r.KeyUsed("mcpd_Ab12Cd34", false)
	r.KeyUsed("mcpd_Ab12Cd34", true)
	r.KeyUsed("", false)       // no key: not counted
	now = now.Add(time.Second) // the next hour
	r.Searched(mcpdir.DoorWeb, "postgres", 1)
	r.Flush(context.Background())
	r.Flush(context.Background()) // nothing more: no write
	if len(store.batches) != 1 {
		t.Fatalf("%d batches", len(store.batches))
	}
	b := store.all()
	h1, h2 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)
	want := []mcpdir.InsightBucket{
		{Hour: h1, Door: mcpdir.DoorMCP, Searches: 1, Empty: 1, Refused: 1},
		{Hour: h1, Door: mcpdir.DoorREST, Searches: 2, Empty: 1, Limited: 1},
		{Hour: h2, Door: mcpdir.DoorWeb, Searches: 1},
	}
	if fmt.Sprint(b.Buckets) != fmt.Sprint(want) {
		t.Fatalf("buckets %+v\nwant %+v", b.Buckets, want)
	}
	wantQ := []mcpdir.HourQuery{
		{Hour: h1, Query: "postgres", Count: 2, Empty: 1, LastSeen: h1.Add(59*time.Minute + 59*time.Second)},
		{Hour: h1, Query: "zxqv plorbnik", Count: 1, Empty: 1, LastSeen: h1.Add(59*time.Minute + 59*time.Second)},
		{Hour: h2, Query: "postgres", Count: 1, LastSeen: h2},
	}
	if fmt.Sprint(b.Queries) != fmt.Sprint(wantQ) {
		t.Fatalf("queries %+v\nwant %+v", b.Queries, wantQ)
	}
	if fmt.Sprint(b.Keys) != fmt.Sprint([]mcpdir.HourKey{{Hour: h1, Key: "mcpd_Ab12Cd34", Requests: 2, Limited: 1}}) {
		t.Fatalf("keys %+v", b.Keys)
	}
}

// Past the bounds, texts are dropped and keys counted together; the
// searches are all counted.
func TestBounds(t *testing.T) {
	store := &memStore{}
	r := New(store, Options{MaxQueries: 3, MaxKeys: 2})
	for i := range 10 {
		r.Searched(mcpdir.DoorREST, fmt.Sprint("q", i), 1)
		r.KeyUsed(fmt.Sprint("k", i), i == 9)
	}
	r.Searched(mcpdir.DoorREST, "q0", 1) // a text held already is counted
	r.Flush(context.Background())
	b := store.all()
	if len(b.Buckets) != 1 || b.Buckets[0].Searches != 11 {
		t.Fatalf("buckets %+v", b.Buckets)
	}
	if len(b.Queries) != 3 || b.Queries[0].Query != "q0" || b.Queries[0].Count != 2 {
		t.Fatalf("queries %+v", b.Queries)
	}
	if len(b.Keys) != 3 {
		t.Fatalf("keys %+v", b.Keys)
	}
	var other mcpdir.HourKey
	for _, k := range b.Keys {
		if k.Key == OtherKeys {
			other = k
		}
	}
	if other.Requests != 8 || other.Limited != 1 {
		t.Fatalf("the other keys: %+v", other)
	}
	// The next interval starts with room again.
	r.Searched(mcpdir.DoorREST, "q9", 0)
	r.Flush(context.Background())
	if b := store.all(); len(b.Queries) != 4 {
		t.Fatalf("after a flush: %+v", b.Queries)
	}
}

// With the query log off, no text is kept: counts only.
func TestQueryLogOff(t *testing.T) {
	store := &memStore{}
	r := New(store, Options{NoTexts: true})
	r.Searched(mcpdir.DoorREST, "secret project name", 0)
	r.Searched(mcpdir.DoorMCP, "postgres", 2)
	r.Flush(context.Background())
	b := store.all()
	if len(b.Queries) != 0 {
		t.Fatalf("texts kept: %+v", b.Queries)
	}
	if len(b.Buckets) != 2 || b.Buckets[0].Searches+b.Buckets[1].Searches != 2 || b.Buckets[0].Empty+b.Buckets[1].Empty != 1 {
		t.Fatalf("counts: %+v", b.Buckets)
	}
}

// A store that fails keeps nothing from being counted: the next flush
// writes it.
func TestFlushRetries(t *testing.T) {
	store := &memStore{fail: true}
	r := New(store, Options{})
	r.Searched(mcpdir.DoorREST, "postgres", 0)
	r.KeyUsed("k", false)
	r.Flush(context.Background())
	store.fail = false
	r.Searched(mcpdir.DoorREST, "postgres", 1)
	r.Flush(context.Background())
	b := store.all()
	if len(b.Buckets) != 1 || b.Buckets[0].Searches != 2 || b.Buckets[0].Empty != 1 || len(b.Queries) != 1 || b.Queries[0].Count != 2 || b.Keys[0].Requests != 1 {
		t.Fatalf("after a failed flush: %+v", b)
	}
}

// Concurrent counting loses nothing.
func TestConcurrent(t *testing.T) {
	store := &memStore{}
	r := New(store, Options{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for j := range 1000 {
				r.Searched(mcpdir.DoorREST, "postgres", j%2)
				r.KeyUsed("k", false)
				if j%100 == 0 {
					r.Flush(context.Background())
				}
			}
		})
	}
	wg.Wait()
	r.Flush(context.Background())
	b := store.all()
	if b.Buckets[0].Searches != 8000 || b.Buckets[0].Empty != 4000 || b.Queries[0].Count != 8000 || b.Keys[0].Requests != 8000 {
		t.Fatalf("%+v", b)
	}
}

// The guard counts every spend for its key, an OAuth token's under its app.
func TestGuard(t *testing.T) {
	store := &memStore{}
	r := New(store, Options{})
	g := r.Guard(fakeGuard{})
	g.Spend(context.Background(), &mcpdir.APIKey{Prefix: "mcpd_Ab12Cd34"})
	g.Spend(context.Background(), &mcpdir.APIKey{Prefix: "oauth:grant-1", ClientID: "mcpdc_one", RateLimit: -2})
	r.Flush(context.Background())
	b := store.all()
	if fmt.Sprintf("%s %d %d %s %d", b.Keys[0].Key, b.Keys[0].Requests, b.Keys[0].Limited, b.Keys[1].Key, b.Keys[1].Limited) != "app:mcpdc_one 1 1 mcpd_Ab12Cd34 0" {
		t.Fatalf("%+v", b.Keys)
	}
}

type fakeGuard struct{ mcpdir.Guard }

func (fakeGuard) Spend(_ context.Context, k *mcpdir.APIKey) (mcpdir.RateDecision, error) {
	return mcpdir.RateDecision{Allowed: k.RateLimit != -2}, nil
}

func BenchmarkSearched(b *testing.B) {
	r := New(&memStore{}, Options{})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Searched(mcpdir.DoorREST, "github issues", 3)
		}
	})
}
