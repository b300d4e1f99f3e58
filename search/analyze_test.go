package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpdir/mcpdir"
)

func words(s string) (whole, all []string) {
	tokenize(s, func(w string, part bool) {
		if !part {
			whole = append(whole, w)
		}
		all = append(all, w)
	})
	return whole, all
}

func TestTokenizePackageNames(t *testing.T) {
	for _, name := range []string{
		"@scope/mcp-server-postgres", "mcp_server_postgres", "PostgresMCP", "postgres.mcp",
		"postgresmcp", "mcp-postgres", "POSTGRES",
	} {
		if _, all := words(name); !slices.Contains(all, "postgres") {
			t.Errorf("%q → %q, want postgres among them", name, all)
		}
	}
}

func TestTokenizeCompounds(t *testing.T) {
	tests := []struct {
		in        string
		whole     []string
		want, not []string
	}{
		{in: "GitHub", whole: []string{"github"}, want: []string{"git", "hub"}},
		{in: "HTTPServer", whole: []string{"httpserver"}, want: []string{"http", "server"}},
		{in: "getUserById", whole: []string{"getuserbyid"}, want: []string{"get", "user", "by", "id"}},
		{in: "pdf2md", whole: []string{"pdf2md"}, want: []string{"pdf", "md", "pdf>md"}},
		{in: "mcpdoc todoistmcp", whole: []string{"mcpdoc", "todoistmcp"}, want: []string{"doc", "todoist"}},
		{in: "k8s s3 mp3 web3", whole: []string{"k8s", "s3", "mp3", "web3"}, not: []string{"k", "s", "mp", "web"}},
		{in: "Café Zürich", whole: []string{"cafe", "zurich"}},
		{in: "Text-to-Speech, v2.0!", whole: []string{"text", "to", "speech", "v2", "0"}},
		{in: "将Mermaid图表转换", whole: []string{"将", "mermaid", "图表", "表转", "转换"}},
		{in: "株価を調べる 한국어 검색", whole: []string{"株価", "価を", "を調", "調べ", "べる", "한국어", "검색"}},
	}
	for _, tt := range tests {
		whole, all := words(tt.in)
		if !slices.Equal(whole, tt.whole) {
			t.Errorf("%q: words %q, want %q", tt.in, whole, tt.whole)
		}
		for _, w := range tt.want {
			if !slices.Contains(all, w) {
				t.Errorf("%q: %q lacks part %q", tt.in, all, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(all, w) {
				t.Errorf("%q: %q has part %q", tt.in, all, w)
			}
		}
	}
}

func TestStem(t *testing.T) {
	for _, pair := range [][2]string{
		{"databases", "database"}, {"forecasts", "forecasting"}, {"diagrams", "diagram"},
		{"payments", "payment"}, {"coding", "code"}, {"kubernets", "kubernetes"},
	} {
		if a, b := stem(pair[0]), stem(pair[1]); a != b {
			t.Errorf("stem(%q) = %q, stem(%q) = %q, want equal", pair[0], a, pair[1], b)
		}
	}
	if got := stem("k8s"); got != "k8s" {
		t.Errorf("stem(k8s) = %q, want it unchanged", got)
	}
}

func TestInformative(t *testing.T) {
	for brief, want := range map[string]bool{
		"":                                 false,
		"Add your description here":        false,
		"A Model Context Protocol server":  false,
		"A MCP server project":             false,
		"MCP server for PostgreSQL":        true,
		"Todoist MCP Server":               true,
		"An MCP server for the Slack API.": true,
	} {
		if got := informative(brief); got != want {
			t.Errorf("informative(%q) = %v, want %v", brief, got, want)
		}
	}
}

func TestEditDistances(t *testing.T) {
	tests := []struct {
		q, w          string
		whole, prefix int
	}{
		{"gihtub", "github", 1, 1},         // transposition
		{"postgress", "postgres", 1, 9},    // deletion; no prefix as long as the query
		{"postgress", "postgresql", 2, 1},  // substitution, then insertion
		{"confluance", "confluence", 1, 1}, // substitution
		{"playwrite", "playwright", 3, 2},  // near a prefix only
		{"spotfy", "spotify", 1, 1},        // insertion
	}
	for _, tt := range tests {
		whole, prefix := editDistances(tt.q, tt.w)
		if whole != tt.whole || prefix != tt.prefix {
			t.Errorf("editDistances(%q, %q) = %d, %d; want %d, %d", tt.q, tt.w, whole, prefix, tt.whole, tt.prefix)
		}
	}
}

// TestFuzzyWalk checks the banded trie walk against brute force.
func TestFuzzyWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	alphabet := "abcdeo"
	randWord := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	x := New()
	var es []*mcpdir.Entry
	for i := range 3000 {
		es = append(es, &mcpdir.Entry{ID: fmt.Sprint(i), Name: randWord(3 + rng.IntN(8))})
	}
	x.Upsert(es...)
	var fw fuzzyWalk
	for range 200 {
		q := randWord(4 + rng.IntN(7))
		budget := typoBudget(len(q))
		got := map[string]fuzzyMatch{}
		for _, m := range fw.run(&x.dict, x.terms, q, budget) {
			got[x.terms[m.id].text] = m
		}
		for _, w := range x.dict.words {
			if w[0] != q[0] {
				continue // the walk keeps the first letter
			}
			whole, prefix := editDistances(q, w)
			m, ok := got[w]
			switch {
			case whole <= budget:
				if !ok || !m.whole || m.dist != whole {
					t.Errorf("%q ~ %q: distance %d, walk found %+v, %v", q, w, whole, m, ok)
				}
			case prefix <= budget:
				if !ok || m.whole || m.dist != prefix {
					t.Errorf("%q ~ %q as prefix: distance %d, walk found %+v, %v", q, w, prefix, m, ok)
				}
			case ok:
				t.Errorf("%q ~ %q: too far (%d, %d), walk found %+v", q, w, whole, prefix, m)
			}
		}
	}
}

func TestSplitNamespace(t *testing.T) {
	for name, want := range map[string][2]string{
		"io.github.modelcontextprotocol/server-postgres": {"modelcontextprotocol", "server-postgres"},
		"com.cloudflare/docs":                            {"cloudflare", "docs"},
		"io.gitlab.acme.tools/runner":                    {"acme.tools", "runner"},
		"@modelcontextprotocol/server-postgres":          {"", "@modelcontextprotocol/server-postgres"},
		"mcp-server-postgres":                            {"", "mcp-server-postgres"},
		"owner/repo":                                     {"", "owner/repo"},
	} {
		if p, r := splitNamespace(name); p != want[0] || r != want[1] {
			t.Errorf("splitNamespace(%q) = %q, %q; want %q, %q", name, p, r, want[0], want[1])
		}
	}
}
