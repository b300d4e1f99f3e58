package mcpdir

import "testing"

// Searches that differ in any part of their filter never share a cache key
// (of facets, results or answers).
func TestQueryKeysTellFiltersApart(t *testing.T) {
	yes, no := true, false
	filters := []Filter{{}, {Transport: "stdio"}, {Registry: "npm"}, {Official: &yes}, {Official: &no},
		{Live: LiveUp}, {Transport: "stdio", Live: LiveUp}, {Tags: []string{"a"}}, {Tags: []string{"a", "b"}}, {Tags: []string{"a\x00b"}}}
	seen := map[string]int{}
	for i, f := range filters {
		k := string(Query{Text: "postgres", Filter: f}.AppendKey(nil))
		if j, dup := seen[k]; dup {
			t.Errorf("filters %+v and %+v share the key %q", filters[j], f, k)
		}
		seen[k] = i
	}
}

// Queries that differ in limit or text never share a key either, however
// their parts could run into each other.
func TestQueryKeysTellTextsApart(t *testing.T) {
	queries := []Query{{Limit: 5, Text: "0"}, {Limit: 50}, {Limit: 1, Text: "10:"}, {Limit: 11, Text: "0:"}, {Text: "a,1:b"},
		{Text: "a", Filter: Filter{Tags: []string{"b"}}}, {Text: "a", Filter: Filter{Transport: "b"}}, {Text: `a"b`}, {Text: "a b"}}
	seen := map[string]int{}
	for i, q := range queries {
		k := string(q.AppendKey(nil))
		if j, dup := seen[k]; dup {
			t.Errorf("queries %+v and %+v share the key %q", queries[j], q, k)
		}
		seen[k] = i
	}
}
