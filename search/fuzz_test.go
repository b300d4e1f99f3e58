package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir/search/lexicon"
)

// Query analysis on any input (the server passes validated keywords, but
// the index must not trust that): no panic, at most limit hits, each from
// the directory, best first, and a total that counts them.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{"postgres", "kubernets", "k8s", "@scope/mcp-server-postgres", "PostgresMCP",
		"mcp_server_postgres", "run python code in a sandbox", "zxqv plorbnik", "\xff\xfe", "日本語", strings.Repeat("a", 300),
		"a b c d e f g h i j k l m n o p", "--", "é́́", "0x1F 2024 v1.2.3", "\u202e",
		"pdf to markdown", "markdown into pdf", "pdf-to-md-mcp", "https://pypi.org/project/pdf2md-mcp/", "github.com/a/b",
		"weather amsterdam", "slack without docker", "python 3.12", "slak"} {
		f.Add(q, 10)
	}
	x := New()
	x.Upsert(testEntries()...)
	f.Fuzz(func(t *testing.T, q string, limit int) {
		limit = 1 + abs(limit)%100
		res := x.Search(q, limit)
		if len(res.Hits) > limit || res.Total < len(res.Hits) {
			t.Fatalf("%q: %d hits of %d, limit %d", q, len(res.Hits), res.Total, limit)
		}
		for i, h := range res.Hits {
			if _, ok := x.Get(h.Entry.ID); !ok {
				t.Fatalf("%q: hit %s is not in the index", q, h.Entry.ID)
			}
			if i > 0 && h.Score > res.Hits[i-1].Score {
				t.Fatalf("%q: hits out of order", q)
			}
		}
		lexicon.Tokenize(q, func(w string, _ bool) {
			if !utf8.ValidString(w) || w == "" {
				t.Fatalf("%q: token %q", q, w)
			}
		})
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
