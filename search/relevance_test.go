package search

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// judgedQuery is one line of relevance/dev.jsonl (and of our own
// testdata/extra-judgments.jsonl): grades of entries by website_url.
type judgedQuery struct {
	QID       string         `json:"qid"`
	Query     string         `json:"query"`
	Kind      string         `json:"kind"`
	Judgments map[string]int `json:"judgments"`
}

func readJudgments(t testing.TB, path string) []judgedQuery {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []judgedQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q judgedQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return qs
}

// queryScore is how one query did.
type queryScore struct {
	ndcg, recall float64
	miss         bool // judged relevant entries exist, none in the top 10
	returned     int
}

// score measures ranked website URLs against judgments, as
// relevance/README.md defines: nDCG@10 with gain 2^grade-1 and discount
// log2(rank+1), the ideal from the judged grades; recall@50 over grades >= 1.
func score(q judgedQuery, ranked []string) queryScore {
	dcg := 0.0
	found10, found50 := 0, 0
	for i, u := range ranked {
		g := q.Judgments[u]
		if g <= 0 {
			continue
		}
		if i < 10 {
			dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
			found10++
		}
		if i < 50 {
			found50++
		}
	}
	var grades []int
	for _, g := range q.Judgments {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	idcg := 0.0
	for i, g := range grades {
		if i == 10 {
			break
		}
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	s := queryScore{returned: len(ranked)}
	if len(grades) > 0 {
		s.ndcg = dcg / idcg
		s.recall = float64(found50) / float64(len(grades))
		s.miss = found10 == 0
	}
	return s
}

// evaluate runs judged queries and tabulates the scores per kind.
func evaluate(t *testing.T, x *Index, qs []judgedQuery) map[string]*kindScore {
	kinds := map[string]*kindScore{}
	overall := &kindScore{}
	kinds["overall"] = overall
	for _, q := range qs {
		res := x.Search(q.Query, 50)
		ranked := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = h.Entry.WebsiteURL
		}
		s := score(q, ranked)
		k := kinds[q.Kind]
		if k == nil {
			k = &kindScore{}
			kinds[q.Kind] = k
		}
		if len(q.Judgments) == 0 {
			k.add(q, s, res.Total, false)
			if res.Total != 0 {
				t.Errorf("%s %q: out-of-domain query matched %d entries (top: %s), want none",
					q.QID, q.Query, res.Total, res.Hits[0].Entry.Name)
			}
			continue
		}
		k.add(q, s, res.Total, true)
		overall.add(q, s, res.Total, true)
		if testing.Verbose() {
			t.Logf("%-22s %-58q nDCG@10 %.3f  recall@50 %.3f  total %5d", q.QID, q.Query, s.ndcg, s.recall, res.Total)
		}
	}
	return kinds
}

// kindScore sums the scores of the queries of one kind.
type kindScore struct {
	queries, scored, misses int
	ndcg, recall            float64
	missed                  []string
}

func (k *kindScore) add(q judgedQuery, s queryScore, total int, scored bool) {
	k.queries++
	if !scored {
		return
	}
	k.scored++
	k.ndcg += s.ndcg
	k.recall += s.recall
	if s.miss {
		k.misses++
		k.missed = append(k.missed, q.QID)
	}
}

func (k *kindScore) meanNDCG() float64 {
	if k.scored == 0 {
		return math.NaN()
	}
	return k.ndcg / float64(k.scored)
}

func table(kinds map[string]*kindScore) string {
	names := make([]string, 0, len(kinds))
	for n := range kinds {
		if n != "overall" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	names = append(names, "overall")
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-14s %7s %8s %10s %7s\n", "kind", "queries", "nDCG@10", "recall@50", "misses")
	for _, n := range names {
		k := kinds[n]
		if k.scored == 0 {
			fmt.Fprintf(&b, "%-14s %7d %8s %10s %7s  (must return nothing)\n", n, k.queries, "-", "-", "-")
			continue
		}
		fmt.Fprintf(&b, "%-14s %7d %8.3f %10.3f %7d\n", n, k.queries, k.meanNDCG(), k.recall/float64(k.scored), k.misses)
	}
	return b.String()
}

// TestRelevance is the ranking-quality gate over the judged queries of
// ../shared/data/relevance/dev.jsonl.
func TestRelevance(t *testing.T) {
	dir := sharedData(t)
	x := loadIndex(t)
	kinds := evaluate(t, x, readJudgments(t, filepath.Join(dir, "relevance", "dev.jsonl")))
	t.Log("dev.jsonl:" + table(kinds))
	if n := kinds["overall"].meanNDCG(); n < 0.80 {
		t.Errorf("overall nDCG@10 = %.3f, want >= 0.80", n)
	}
	for _, kind := range []string{"typo", "synonym", "agent-task"} {
		if k := kinds[kind]; k == nil || k.meanNDCG() < 0.75 {
			t.Errorf("%s nDCG@10 = %.3f, want >= 0.75", kind, k.meanNDCG())
		}
	}
	if o := kinds["overall"]; o.misses > 0 {
		t.Errorf("%d queries have judged relevant entries but none in the top 10: %v", o.misses, o.missed)
	}
	if res := x.Search("zxqv plorbnik", 10); res.Total != 0 {
		t.Errorf("nonsense query matched %d entries", res.Total)
	}
}

// TestRelevanceExtra checks our own judged cases, for what dev.jsonl lacks
// (abbreviations, typos in other words, camelCase names, prefixes).
func TestRelevanceExtra(t *testing.T) {
	x := loadIndex(t)
	kinds := evaluate(t, x, readJudgments(t, filepath.Join("testdata", "extra-judgments.jsonl")))
	t.Log("testdata/extra-judgments.jsonl:" + table(kinds))
	if o := kinds["overall"]; o.misses > 0 {
		t.Errorf("%d queries have judged relevant entries but none in the top 10: %v", o.misses, o.missed)
	}
	if n := kinds["overall"].meanNDCG(); n < 0.75 {
		t.Errorf("overall nDCG@10 = %.3f, want >= 0.75", n)
	}
}
