// Package releval measures ranking quality against the judged queries of
// the project's shared data (../shared/data/relevance/README.md): nDCG@10,
// recall@50 and queries that miss, overall and per kind. The search index's
// tests and the comparison with other engines share it.
package releval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
)

// SharedData finds the shared data directory: $MCPDIR_SHARED_DATA, or
// ../shared/data beside the module root (the directory holding go.mod) above
// the working directory. It returns why not when there is none.
func SharedData() (dir, missing string) {
	if d := os.Getenv("MCPDIR_SHARED_DATA"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "packages-corpus.jsonl")); err != nil {
			return "", "MCPDIR_SHARED_DATA=" + d + " has no packages-corpus.jsonl"
		}
		return d, ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err.Error()
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "data")
			if _, err := os.Stat(filepath.Join(d, "packages-corpus.jsonl")); err != nil {
				return "", "../shared/data not found"
			}
			return d, ""
		}
		if filepath.Dir(dir) == dir {
			return "", "no go.mod above " + wd
		}
	}
}

// Corpus finds the shared data directory and reads its corpus (LoadCorpus),
// for the commands that measure or fit against it.
func Corpus() (dir string, entries []*mcpdir.Entry, err error) {
	dir, missing := SharedData()
	if dir == "" {
		return "", nil, errors.New(missing)
	}
	entries, _, err = LoadCorpus(dir)
	return dir, entries, err
}

// LoadCorpus reads packages-corpus.jsonl as the directory imports it:
// through importer.ParseRecord, with ids from natural keys. It also returns
// the file's size in bytes.
func LoadCorpus(dir string) ([]*mcpdir.Entry, int64, error) {
	data, err := os.ReadFile(filepath.Join(dir, "packages-corpus.jsonl"))
	if err != nil {
		return nil, 0, err
	}
	var entries []*mcpdir.Entry
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		e, err := importer.ParseRecord(line)
		if err != nil {
			continue // the directory skips such records too
		}
		e.ID = mcpdir.EntryID(e.NaturalKey())
		entries = append(entries, e)
	}
	return entries, int64(len(data)), nil
}

// Query is one judged query: grades of entries by website_url (2: what the
// query asks for; 1: related; unlisted: 0). Out-of-domain queries have none.
type Query struct {
	QID       string         `json:"qid"`
	Query     string         `json:"query"`
	Kind      string         `json:"kind"`
	Judgments map[string]int `json:"judgments"`
}

// ReadQueries reads judged queries, one JSON object a line.
func ReadQueries(path string) ([]Query, error) {
	qs, err := ReadLines[Query](path)
	if err == nil && len(qs) == 0 {
		err = errors.New(path + ": no queries")
	}
	return qs, err
}

// MustReadQueries is ReadQueries for the measuring tools: a file it cannot
// read ends the program (log.Fatal).
func MustReadQueries(path string) []Query {
	qs, err := ReadQueries(path)
	if err != nil {
		log.Fatal(err)
	}
	return qs
}

// ReadLines reads a file of JSON objects, one a line; blank lines are left
// out.
func ReadLines[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []T
	for line := range bytes.Lines(data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Score is how one query did.
type Score struct {
	NDCG, Recall float64
	Miss         bool // judged relevant entries exist, none in the top 10
}

// ScoreRanking measures ranked website URLs against a query's judgments:
// nDCG@10 with gain 2^grade-1 and discount log2(rank+1), the ideal from the
// judged grades; recall@50 over grades >= 1.
func ScoreRanking(q Query, ranked []string) Score {
	dcg := 0.0
	found10, found50 := 0, 0
	for i, u := range ranked {
		g := q.Judgments[u]
		if g <= 0 || i >= 50 {
			continue
		}
		found50++
		if i < 10 {
			dcg += gain(g, i)
			found10++
		}
	}
	var grades []int
	for _, g := range q.Judgments {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	if len(grades) == 0 {
		return Score{}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	idcg := 0.0
	for i, g := range grades[:min(10, len(grades))] {
		idcg += gain(g, i)
	}
	return Score{NDCG: dcg / idcg, Recall: float64(found50) / float64(len(grades)), Miss: found10 == 0}
}

func gain(grade, rank int) float64 {
	return (math.Pow(2, float64(grade)) - 1) / math.Log2(float64(rank+2))
}

// Engine answers a query with ranked website URLs (at least 50 if it has
// them) and the number of all entries that match.
type Engine func(query string) (ranked []string, total int)

// Report sums the scores of a run of queries, per kind and overall.
type Report struct {
	Kinds map[string]*Kind
	// Answered lists the out-of-domain queries that matched entries.
	Answered []string
}

// Kind sums the scores of the queries of one kind.
type Kind struct {
	Queries, Scored int
	NDCG, Recall    float64
	Missed          []string
	// Empty counts the scored queries that answered nothing at all.
	Empty int
}

// MeanNDCG is the kind's mean nDCG@10 (NaN if no query was scored).
func (k *Kind) MeanNDCG() float64 { return k.NDCG / float64(k.Scored) }

// JudgedEngine answers a judged query, seeing its judgments: an index
// whose hits each stand for several judged entries (records merged into
// one entry per server) says which of them a hit is for this query.
type JudgedEngine func(q Query) (ranked []string, total int)

// Evaluate runs the queries on an engine. log, if not nil, gets a line per
// query.
func Evaluate(qs []Query, engine Engine, log func(string)) *Report {
	return EvaluateJudged(qs, func(q Query) ([]string, int) { return engine(q.Query) }, log)
}

// EvaluateJudged is Evaluate with an engine that sees the judgments.
func EvaluateJudged(qs []Query, engine JudgedEngine, log func(string)) *Report {
	r := &Report{Kinds: map[string]*Kind{"overall": {}}}
	for _, q := range qs {
		ranked, total := engine(q)
		k := r.Kinds[q.Kind]
		if k == nil {
			k = &Kind{}
			r.Kinds[q.Kind] = k
		}
		k.Queries++
		if len(q.Judgments) == 0 {
			if total != 0 {
				r.Answered = append(r.Answered, fmt.Sprintf("%s %q (%d entries)", q.QID, q.Query, total))
			}
			continue
		}
		s := ScoreRanking(q, ranked)
		k.add(q, s, total == 0)
		r.Kinds["overall"].add(q, s, total == 0)
		if log != nil {
			log(fmt.Sprintf("%-20s %-62q nDCG@10 %.3f  recall@50 %.3f  total %5d", q.QID, q.Query, s.NDCG, s.Recall, total))
		}
	}
	r.Kinds["overall"].Queries = len(qs)
	return r
}

func (k *Kind) add(q Query, s Score, empty bool) {
	k.Scored++
	if empty {
		k.Empty++
	}
	k.NDCG += s.NDCG
	k.Recall += s.Recall
	if s.Miss {
		k.Missed = append(k.Missed, q.QID)
	}
}

// KindNames lists the report's kinds, overall last.
func (r *Report) KindNames() []string {
	var names []string
	for n := range r.Kinds {
		if n != "overall" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append(names, "overall")
}

// Table renders the report.
func (r *Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %7s %8s %10s %7s %6s\n", "kind", "queries", "nDCG@10", "recall@50", "misses", "empty")
	for _, n := range r.KindNames() {
		k := r.Kinds[n]
		if k.Scored == 0 {
			fmt.Fprintf(&b, "%-20s %7d %8s %10s %7s %6s  (answered: %d, want 0)\n", n, k.Queries, "-", "-", "-", "-", len(r.Answered))
			continue
		}
		fmt.Fprintf(&b, "%-20s %7d %8.3f %10.3f %7d %6d\n", n, k.Queries, k.MeanNDCG(), k.Recall/float64(k.Scored), len(k.Missed), k.Empty)
	}
	return b.String()
}

// Searcher is a search index as the evaluation asks it.
type Searcher interface {
	Search(query string, limit int) mcpdir.SearchResult
}

// IndexEngine is the engine of a search index: its best 50 hits' website
// URLs, and its total.
func IndexEngine(x Searcher) Engine {
	return func(query string) ([]string, int) {
		res := x.Search(query, 50)
		ranked := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ranked[i] = h.Entry.WebsiteURL
		}
		return ranked, res.Total
	}
}

// Half is the half of a judged set a query belongs to, by a rule fixed
// once: the number that ends its id, odd for "tune", even for "check".
// Rules, constants and tables are chosen on the tune half; the figures
// reported and gated are the check half's.
func Half(qid string) string {
	i := len(qid)
	for i > 0 && qid[i-1] >= '0' && qid[i-1] <= '9' {
		i--
	}
	n := 0
	for _, c := range qid[i:] {
		n = n*10 + int(c-'0')
	}
	if n%2 == 1 {
		return "tune"
	}
	return "check"
}

// Split returns the queries of one half.
func Split(qs []Query, half string) []Query {
	var out []Query
	for _, q := range qs {
		if Half(q.QID) == half {
			out = append(out, q)
		}
	}
	return out
}

// AboutQuery is a query labelled by whether the directory is about it
// ("in": some entry serves it; "out": none does), for the decision to
// answer at all (search/testdata/about.jsonl).
type AboutQuery struct {
	QID    string `json:"qid"`
	Query  string `json:"query"`
	Form   string `json:"form"` // keyword, sentence, long-task, non-english; world-question, gibberish, …
	Lang   string `json:"lang"`
	Domain string `json:"domain"`
}

// ReadAbout reads labelled queries, one JSON object a line.
func ReadAbout(path string) ([]AboutQuery, error) {
	qs, err := ReadLines[AboutQuery](path)
	for _, q := range qs {
		if q.Domain != "in" && q.Domain != "out" {
			return nil, fmt.Errorf("%s: %s: domain %q, want in or out", path, q.QID, q.Domain)
		}
	}
	return qs, err
}
