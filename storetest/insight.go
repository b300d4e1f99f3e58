package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
)

// The insight: batches add to what is stored (also batches written at
// once through two handles, as replicas do), rows of one key in a batch
// are added, a read sums the hours since a time, lists come most first
// and bounded, and a prune drops the hours before a time.
func insight(t *testing.T, open Opener) {
	ctx := context.Background()
	db, another := open(t)
	got, err := db.ReadInsights(ctx, time.Time{}, 10)
	if err != nil || got.Searches == nil || len(got.Searches)+len(got.TopQueries)+len(got.ZeroResultQueries)+len(got.Keys) != 0 {
		t.Fatalf("an empty insight: %+v %v", got, err)
	}
	h1 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	h2 := h1.Add(time.Hour)
	seen := h2.Add(17 * time.Minute)
	batch := mcpdir.InsightBatch{
		Buckets: []mcpdir.InsightBucket{
			{Hour: h1.Add(5 * time.Minute), Door: mcpdir.DoorREST, Searches: 3, Empty: 1, Limited: 1, Refused: 2},
			{Hour: h1, Door: mcpdir.DoorREST, Searches: 1}, // the same row: added
			{Hour: h2, Door: mcpdir.DoorMCP, Searches: 2, Empty: 2},
		},
		Queries: []mcpdir.HourQuery{
			{Hour: h1, Query: "postgres", Count: 3, LastSeen: h1.Add(time.Minute)},
			{Hour: h2, Query: "postgres", Count: 1, LastSeen: seen},
			{Hour: h2, Query: "zxqv plorbnik", Count: 2, Empty: 2, LastSeen: h2},
			{Hour: h2, Query: "héllo wörld", Count: 1, Empty: 1, LastSeen: h2},
		},
		Keys: []mcpdir.HourKey{
			{Hour: h1, Key: "mcpd_Ab12Cd34", Requests: 4, Limited: 1},
			{Hour: h2, Key: "app:client-1", Requests: 2},
		},
	}
	if err := db.AddInsights(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// Two replicas flushing at once, many times: every count arrives.
	var wg sync.WaitGroup
	for i := range 8 {
		s := db
		if i%2 == 1 {
			s = another()
		}
		wg.Go(func() {
			b := mcpdir.InsightBatch{
				Buckets: []mcpdir.InsightBucket{{Hour: h2, Door: mcpdir.DoorMCP, Searches: 1}, {Hour: h2, Door: mcpdir.DoorWeb, Searches: 1}},
				Queries: []mcpdir.HourQuery{{Hour: h2, Query: "postgres", Count: 1, LastSeen: h2}, {Hour: h2, Query: fmt.Sprint("q", i), Count: 1, LastSeen: h2}},
				Keys:    []mcpdir.HourKey{{Hour: h2, Key: "app:client-1", Requests: 1}, {Hour: h2, Key: "mcpd_Ab12Cd34", Requests: 1}},
			}
			if err := s.AddInsights(ctx, b); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := db.AddInsights(ctx, mcpdir.InsightBatch{}); err != nil {
		t.Fatalf("an empty batch: %v", err)
	}
	got, err = another().ReadInsights(ctx, h1.Add(30*time.Minute), 100) // from h1: the hour since falls in
	if err != nil {
		t.Fatal(err)
	}
	want := []mcpdir.InsightBucket{
		{Hour: h1, Door: mcpdir.DoorREST, Searches: 4, Empty: 1, Limited: 1, Refused: 2},
		{Hour: h2, Door: mcpdir.DoorMCP, Searches: 10, Empty: 2},
		{Hour: h2, Door: mcpdir.DoorWeb, Searches: 8},
	}
	if len(got.Searches) != len(want) {
		t.Fatalf("buckets: %+v", got.Searches)
	}
	for i, w := range want {
		if g := got.Searches[i]; !g.Hour.Equal(w.Hour) || g.Door != w.Door || g.Searches != w.Searches || g.Empty != w.Empty || g.Limited != w.Limited || g.Refused != w.Refused {
			t.Fatalf("bucket %d: %+v, want %+v", i, g, w)
		}
	}
	if len(got.TopQueries) != 11 {
		t.Fatalf("top queries: %+v", got.TopQueries)
	}
	if q := got.TopQueries[0]; q.Query != "postgres" || q.Count != 12 || !q.LastSeen.Equal(seen) {
		t.Fatalf("the top query: %+v", q)
	}
	if q := got.TopQueries[1]; q.Query != "zxqv plorbnik" || q.Count != 2 {
		t.Fatalf("the second query: %+v", q)
	}
	if len(got.ZeroResultQueries) != 2 || got.ZeroResultQueries[0].Query != "zxqv plorbnik" || got.ZeroResultQueries[0].Count != 2 ||
		got.ZeroResultQueries[1].Query != "héllo wörld" || got.ZeroResultQueries[1].Count != 1 || !got.ZeroResultQueries[1].LastSeen.Equal(h2) {
		t.Fatalf("zero-result queries: %+v", got.ZeroResultQueries)
	}
	if len(got.Keys) != 2 || got.Keys[0] != (mcpdir.KeyStat{Key: "mcpd_Ab12Cd34", Requests: 12, Limited: 1}) || got.Keys[1] != (mcpdir.KeyStat{Key: "app:client-1", Requests: 10}) {
		t.Fatalf("keys: %+v", got.Keys)
	}
	// A limit bounds each list; a later since leaves the earlier hour out.
	got, err = db.ReadInsights(ctx, h2, 1)
	if err != nil || len(got.TopQueries) != 1 || len(got.ZeroResultQueries) != 1 || len(got.Keys) != 1 || len(got.Searches) != 2 {
		t.Fatalf("bounded, from h2: %+v %v", got, err)
	}
	if got.TopQueries[0].Count != 9 || got.Keys[0] != (mcpdir.KeyStat{Key: "app:client-1", Requests: 10}) {
		t.Fatalf("from h2: %+v", got)
	}
	// A prune drops the hours before its time, and only those.
	if err := db.PruneInsights(ctx, h2); err != nil {
		t.Fatal(err)
	}
	got, err = db.ReadInsights(ctx, time.Time{}, 100)
	if err != nil || len(got.Searches) != 2 || got.Searches[0].Door != mcpdir.DoorMCP || len(got.Keys) != 2 || got.TopQueries[0].Count != 9 {
		t.Fatalf("after the prune: %+v %v", got, err)
	}
	if err := db.PruneInsights(ctx, h2.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err = db.ReadInsights(ctx, time.Time{}, 100); err != nil || len(got.Searches)+len(got.TopQueries)+len(got.Keys) != 0 {
		t.Fatalf("after pruning all: %+v %v", got, err)
	}
}
