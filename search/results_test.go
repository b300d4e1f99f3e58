package search

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/mcpdir/mcpdir"
)

// A repeated search is answered from the cache (the same hits, not a copy),
// and the cached answer is what a search would answer.
func TestResultCacheAnswersRepeats(t *testing.T) {
	x := New()
	x.Upsert(filterEntries()...)
	plain := New()
	plain.SetResultCache(0)
	plain.Upsert(filterEntries()...)
	stdio := mcpdir.Filter{Transport: "stdio"}
	for _, q := range []mcpdir.Query{
		{Text: "postgres database", Limit: 5},
		{Text: "postgres database", Limit: 7},
		{Text: "postgres database", Limit: 5, Filter: stdio},
		{Text: "postgres database", Limit: 5, Filter: mcpdir.Filter{Tags: []string{"sql"}}},
		{Text: "weather", Limit: 5},
		{Text: "nothing here at all", Limit: 5},
	} {
		first, again, want := x.Find(q), x.Find(q), plain.Find(q)
		if !reflect.DeepEqual(first, want) || !reflect.DeepEqual(again, want) {
			t.Errorf("%+v: cached %+v, then %+v, want %+v", q, first, again, want)
		}
		if len(first.Hits) > 0 && &first.Hits[0] != &again.Hits[0] {
			t.Errorf("%+v: searched again, not answered from the cache", q)
		}
		if again, plainAgain := plain.Find(q), plain.Find(q); len(again.Hits) > 0 && &again.Hits[0] == &plainAgain.Hits[0] {
			t.Errorf("%+v: answered from the cache with the cache off", q)
		}
	}
}

// Facets are counted when asked: an answer cached without them does not
// answer a search that asks for them, and one cached with them answers
// both, each as asked.
func TestResultCacheFacets(t *testing.T) {
	x := New()
	x.Upsert(filterEntries()...)
	q := mcpdir.Query{Text: "postgres", Limit: 3}
	if res := x.Find(q); res.Facets != nil {
		t.Fatalf("facets not asked for, but counted: %+v", res.Facets)
	}
	q.Facets = true
	with := x.Find(q)
	if with.Facets == nil || with.Facets.Transports["stdio"] != 40 {
		t.Fatalf("facets asked for after a search without them: %+v", with.Facets)
	}
	q.Facets = false
	if res := x.Find(q); res.Facets != nil || res.Total != with.Total {
		t.Errorf("facets not asked for: %+v, total %d (want %d)", res.Facets, res.Total, with.Total)
	}
	if hits, misses := x.ResultLookups(); hits != 1 || misses != 2 {
		t.Errorf("%d hits and %d misses counted, want 1 and 2 (the search with facets searched)", hits, misses)
	}
}

// Any change to the index empties the cache: an entry added, replaced or
// removed shows in the next search.
func TestResultCacheFollowsChanges(t *testing.T) {
	x := New()
	x.Upsert(filterEntries()...)
	q := mcpdir.Query{Text: "weather", Limit: 5, Facets: true}
	if res := x.Find(q); res.Total != 1 {
		t.Fatalf("weather: %d matches, want 1", res.Total)
	}
	storm := entry("storm-watch", "Weather alerts and storm warnings", 1000)
	x.Upsert(storm)
	if res := x.Find(q); res.Total != 2 || len(res.Hits) != 2 || res.Hits[0].Entry.Name != "storm-watch" && res.Hits[1].Entry.Name != "storm-watch" {
		t.Fatalf("after adding storm-watch: %d matches, %d hits", res.Total, len(res.Hits))
	}
	renamed := entry("storm-watch", "Storm warnings", 1000)
	x.Upsert(renamed)
	if res := x.Find(q); res.Total != 1 || res.Hits[0].Entry.Name != "weather-now" {
		t.Fatalf("after storm-watch no longer mentions weather: %d matches", res.Total)
	}
	x.Remove(mcpdir.EntryID("name:weather-now"))
	if res := x.Find(q); res.Total != 0 || len(res.Hits) != 0 {
		t.Fatalf("after removing weather-now: %d matches", res.Total)
	}
}

// The cache keeps at most the searches it is sized for, a search for more
// than 50 hits counting as one per 50.
func TestResultCacheIsBounded(t *testing.T) {
	x := New()
	var es []*mcpdir.Entry
	for i := range 400 {
		es = append(es, entry(fmt.Sprintf("postgres-%d", i), "Postgres tools", int64(i)))
	}
	x.Upsert(es...)
	x.SetResultCache(8)
	for i := range 100 {
		x.Find(mcpdir.Query{Text: "postgres", Limit: i + 1})
	}
	if n := x.results.Len(); n > 8 || n == 0 {
		t.Errorf("%d searches of up to 100 hits cached, want 1 to 8", n)
	}
	x.SetResultCache(8)
	for i := range 10 {
		x.Find(mcpdir.Query{Text: "postgres", Limit: 300 + i})
	}
	if n := x.results.Len(); n > 2 {
		t.Errorf("%d searches of 300 hits cached, want at most 2", n)
	}
}
