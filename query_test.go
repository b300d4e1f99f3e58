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
