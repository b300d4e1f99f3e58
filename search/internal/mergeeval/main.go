// Command mergeeval measures issue 26's "one server, one entry" on the
// shared data: the directory of records (shareddir.Load: the starter
// directory, the packages corpus, the registry's seed and sample) is indexed
// as it is, one entry a record ("before"), and merged, one entry a server
// (merge.Groups, merge.Merge: "after"); both answer the keyword dev set
// (../shared/data/relevance/dev.jsonl) and the natural-language dev set
// (search/testdata/nl.jsonl, its tune and check halves), and twenty plain
// queries. It prints, as markdown for docs/BENCHMARKS.md, how many records
// collapse, nDCG@10 before and after, and how many top-10 hits repeat a
// server already above them:
//
//	go run ./search/internal/mergeeval [-v]
//
// Judgments name records by website URL. After merging, a hit stands for
// every record of its server, so it is graded as the best judged of them;
// each judged record is credited at most once a query, and the ideal stays
// the judgments' own. Two records judged relevant for one query that merge
// into one entry leave one grade unattainable: the "ceiling" column is the
// best nDCG@10 a merged ranking can reach. The starter's and the registry's
// records are not judged (their websites are not the corpus's package
// pages), so "before" is also graded that same way, by server ("before, by
// server"): the difference from "after" is then the ranking's alone, not the
// judgments' reach.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"log"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/internal/shareddir"
	"github.com/mcpdir/mcpdir/merge"
	"github.com/mcpdir/mcpdir/search"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// plain are everyday one- and two-word searches, the kind whose top 10 a
// server's several records filled.
var plain = []string{
	"postgres", "github", "filesystem", "slack", "brave search", "puppeteer", "memory", "sqlite", "google maps", "notion",
	"fetch", "git", "time", "everything", "sentry", "redis", "mongodb", "playwright", "kubernetes", "aws",
}

// The runs measured, in the order of the report's columns.
const (
	corpusAlone     = iota // the packages corpus alone, as the search gates index it
	recordsAsJudged        // the directory's records, each hit graded as its own record
	recordsByServer        // the same, each hit graded by server (credit)
	mergedByServer         // the merged entries, each hit graded by server
	ceiling                // the best ranking of merged entries
)

func main() {
	verbose := flag.Bool("v", false, "also list the queries whose nDCG@10 changes, the judged records that lose rank, and the merged entries in the plain queries' top 10s")
	testdata := flag.String("testdata", "search/testdata", "the project's judged sets")
	runs := flag.Int("runs", 5, "runs of Groups and Merge to time (the fastest is reported)")
	flag.Parse()
	log.SetFlags(0)

	dir, missing := releval.SharedData()
	if dir == "" {
		log.Fatalf("mergeeval: %s: it needs the shared data set (../shared/data beside the project, or MCPDIR_SHARED_DATA)", missing)
	}
	if f := shareddir.Missing(dir); f != "" {
		log.Fatalf("mergeeval: %s not found in %s", f, dir)
	}
	records, from, err := shareddir.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	corpus, _, err := releval.LoadCorpus(dir)
	if err != nil {
		log.Fatal(err)
	}
	read := releval.MustReadQueries
	dev := read(filepath.Join(dir, "relevance", "dev.jsonl"))
	nl := read(filepath.Join(*testdata, "nl.jsonl"))

	var groups []merge.Group
	var merged []*mcpdir.Entry
	tookGroups, tookMerge := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range max(*runs, 1) {
		start := time.Now()
		gs := merge.Groups(records, nil)
		grouped := time.Now()
		ms := make([]*mcpdir.Entry, len(gs))
		for i, g := range gs {
			ms[i] = merge.Merge(g)
		}
		tookGroups, tookMerge = min(tookGroups, grouped.Sub(start)), min(tookMerge, time.Since(grouped))
		groups, merged = gs, ms
	}
	d := newDirectory(groups)

	// The corpus alone is what the search package's gates measure: the
	// column relates these figures to docs/BENCHMARKS.md's.
	corpusX, before, after := index(corpus), index(records), index(merged)
	engines := [...]releval.JudgedEngine{
		corpusAlone:     judged(releval.IndexEngine(corpusX)),
		recordsAsJudged: judged(releval.IndexEngine(before)),
		recordsByServer: d.byServer(before),
		mergedByServer:  d.byServer(after),
		ceiling:         d.ceiling,
	}

	out := &strings.Builder{}
	p := func(format string, a ...any) { fmt.Fprintf(out, format, a...) }

	sizes := map[int]int{}
	for _, g := range groups {
		sizes[len(g.Members)]++
	}
	p("## One server, one entry (issue 26 item 5)\n\nCommand: `go run ./search/internal/mergeeval` (`-v` lists what changed).\n\n### The directory\n\n")
	p("%d records (%s) → %d entries: %d records collapse into %d entries of two or more records (%s). ",
		len(records), counts(from), len(groups), len(records)-len(groups), len(groups)-sizes[1], sizeList(sizes))
	p("`merge.Groups` takes %v on it, `merge.Merge` of every group %v (the fastest of %d runs).\n\n",
		tookGroups.Round(time.Millisecond), tookMerge.Round(time.Millisecond), max(*runs, 1))

	sets := []struct {
		name string
		qs   []releval.Query
	}{
		{"keyword (`dev.jsonl`)", dev},
		{"natural, tune half", releval.Split(nl, "tune")},
		{"natural, check half", releval.Split(nl, "check")},
	}
	reports := make([][]*releval.Report, len(sets))
	for i, s := range sets {
		for _, e := range engines {
			reports[i] = append(reports[i], releval.EvaluateJudged(s.qs, e, nil))
		}
	}

	p("### Relevance and repeats\n\n")
	p("nDCG@10 of the corpus alone (what the search gates measure), of the directory's records (before: each hit graded as its record; ")
	p("by server: as its server's best judged record not credited above it) and of its merged entries (after: graded by server); ")
	p("ceiling: the best a merged ranking can reach. Misses: a relevant record exists, none in the top 10. ")
	p("Repeats: top-10 hits that are another record of a server already above them (queries with any in brackets).\n\n")
	p("| set | queries | corpus alone | before | before, by server | after | ceiling | recall@50 before → after | misses before → after | repeats before → after |\n")
	p("|---|---|---|---|---|---|---|---|---|---|\n")
	var shared []string
	repeated := 0
	for i, s := range sets {
		r := reports[i]
		o := func(k int) *releval.Kind { return r[k].Kinds["overall"] }
		b, a := o(recordsAsJudged), o(mergedByServer)
		rb, qb := d.repeats(before, s.qs)
		ra, qa := d.repeats(after, s.qs)
		p("| %s | %d | %.3f | %.3f | %.3f | **%.3f** | %.3f | %.3f → %.3f | %d → %d | %d (%d) → **%d (%d)** |\n",
			s.name, b.Scored, o(corpusAlone).MeanNDCG(), b.MeanNDCG(), o(recordsByServer).MeanNDCG(), a.MeanNDCG(), o(ceiling).MeanNDCG(),
			b.Recall/float64(b.Scored), a.Recall/float64(a.Scored), len(b.Missed), len(a.Missed), rb, qb, ra, qa)
		repeated += ra
		if n, q := d.sharedJudged(s.qs); n > 0 {
			shared = append(shared, fmt.Sprintf("%s %d in %d queries", s.name, n, q))
		}
	}
	qs := make([]releval.Query, len(plain))
	for i, q := range plain {
		qs[i] = releval.Query{Query: q}
	}
	rb, qb := d.repeats(before, qs)
	ra, qa := d.repeats(after, qs)
	repeated += ra
	p("| plain queries | %d | | | | | | | | %d (%d) → **%d (%d)** |\n\n", len(plain), rb, qb, ra, qa)
	var each, none []string
	for _, q := range qs {
		if n, _ := d.repeats(before, []releval.Query{q}); n > 0 {
			each = append(each, fmt.Sprintf("%s %d", q.Query, n))
		}
		if before.Search(q.Query, 1).Total == 0 && after.Search(q.Query, 1).Total == 0 {
			none = append(none, q.Query)
		}
	}
	p("Repeats before, by plain query: %s. Answering nothing, before and after: %s.\n\n", strings.Join(each, ", "), cmp.Or(strings.Join(none, ", "), "none"))
	if len(shared) == 0 {
		shared = append(shared, "none")
	}
	p("Judged relevant records that merged into one entry with another judged relevant for the same query (one grade unattainable after): %s.\n\n",
		strings.Join(shared, "; "))

	p("By kind (keyword set, and the natural set's check half):\n\n")
	p("| set | kind | queries | corpus alone | before | before, by server | after | ceiling |\n|---|---|---|---|---|---|---|---|\n")
	for _, i := range []int{0, 2} {
		for _, k := range reports[i][0].KindNames() {
			if k == "overall" || reports[i][recordsAsJudged].Kinds[k].Scored == 0 {
				continue
			}
			p("| %s | %s | %d |", sets[i].name, k, reports[i][recordsAsJudged].Kinds[k].Scored)
			for _, r := range reports[i] {
				p(" %.3f |", r.Kinds[k].MeanNDCG())
			}
			p("\n")
		}
	}

	p("\n### `postgres`, top 5\n\n| # | before | after |\n|---|---|---|\n")
	hb, ha := before.Search("postgres", 5).Hits, after.Search("postgres", 5).Hits
	for i := range max(len(hb), len(ha)) {
		p("| %d | %s | %s |\n", i+1, d.describe(hb, i), d.describe(ha, i))
	}

	var changed []string
	up, down := 0, 0
	for _, s := range sets {
		for _, q := range s.qs {
			if len(q.Judgments) == 0 {
				continue
			}
			rb, _ := engines[recordsByServer](q)
			ra, _ := engines[mergedByServer](q)
			b, a := releval.ScoreRanking(q, rb).NDCG, releval.ScoreRanking(q, ra).NDCG
			switch {
			case a > b+1e-9:
				up++
			case a < b-1e-9:
				down++
			default:
				continue
			}
			changed = append(changed, fmt.Sprintf("  %-12s %.3f → %.3f  %q", q.QID, b, a, q.Query))
		}
	}
	lost, single := d.lostRank(before, after, append(slices.Clone(dev), nl...))
	p("\nJudged queries whose nDCG@10 changes from before, by server, to after: %d up, %d down. ", up, down)
	p("Judged relevant records in a top 10 before whose entry ranks lower after: %d merged into an entry, %d single records.\n", len(lost), single)
	fmt.Print(out.String())
	if repeated > 0 {
		log.Fatalf("mergeeval: %d top-10 hits after merging repeat a server", repeated)
	}

	if !*verbose {
		return
	}
	fmt.Printf("\nnDCG@10 changes, before (by server) → after:\n%s\n", strings.Join(changed, "\n"))
	fmt.Printf("\nJudged relevant records merged into an entry that ranks lower (rank before → after, 0: not in the top 50):\n%s\n", strings.Join(lost, "\n"))
	fmt.Println("\nMerged entries in the plain queries' top 10s:")
	for _, q := range plain {
		for i, h := range after.Search(q, 10).Hits {
			if g := d.groups[d.of[h.Entry.ID]]; len(g.Members) > 1 {
				var ms []string
				for _, m := range g.Members {
					ms = append(ms, fmt.Sprintf("%s [%s] %s", m.Name, cmp.Or(m.Source, "starter"), m.WebsiteURL))
				}
				fmt.Printf("  %-12q #%-2d %s\n", q, i+1, strings.Join(ms, " + "))
			}
		}
	}
}

// index indexes entries as the search package's tests do: no result cache.
func index(entries []*mcpdir.Entry) *search.Index {
	x := search.New()
	x.SetResultCache(0)
	x.Upsert(entries...)
	return x
}

// judged is an engine that does not need the judgments.
func judged(e releval.Engine) releval.JudgedEngine {
	return func(q releval.Query) ([]string, int) { return e(q.Query) }
}

// directory is the grouped records, to tell the server of a hit and of a
// judged website URL.
type directory struct {
	groups []merge.Group
	of     map[string]int   // a record's id (so a merged entry's too) → its group
	byURL  map[string][]int // a website URL → the groups of the records bearing it
}

func newDirectory(groups []merge.Group) *directory {
	d := &directory{groups: groups, of: map[string]int{}, byURL: map[string][]int{}}
	for i, g := range groups {
		for _, m := range g.Members {
			d.of[m.ID] = i
			if u := m.WebsiteURL; u != "" && !slices.Contains(d.byURL[u], i) {
				d.byURL[u] = append(d.byURL[u], i)
			}
		}
	}
	return d
}

// byServer is an index's engine whose hits are graded by server (credit).
func (d *directory) byServer(x *search.Index) releval.JudgedEngine {
	return func(q releval.Query) ([]string, int) {
		res := x.Search(q.Query, 50)
		return d.credit(q, res.Hits), res.Total
	}
}

// credit ranks hits as website URLs for scoring: each hit as the best
// judged of its server's records' URLs that no hit above it was credited
// with, so that no judged record counts twice (in a merged index a server
// is one hit; in the records' index its second record gets what is left,
// nothing if its server has one judged record).
func (d *directory) credit(q releval.Query, hits []mcpdir.Hit) []string {
	ranked := make([]string, len(hits))
	used := map[string]bool{"": true}
	for i, h := range hits {
		best, grade := "", 0
		for _, m := range d.groups[d.of[h.Entry.ID]].Members {
			if g := q.Judgments[m.WebsiteURL]; g > grade && !used[m.WebsiteURL] {
				best, grade = m.WebsiteURL, g
			}
		}
		if best == "" && !used[h.Entry.WebsiteURL] {
			best = h.Entry.WebsiteURL
		}
		used[best] = true
		ranked[i] = best
	}
	return ranked
}

// ceiling is the best ranking of merged entries: each group once, graded as
// its best judged record, the best groups first.
func (d *directory) ceiling(q releval.Query) ([]string, int) {
	type graded struct {
		url   string
		grade int
	}
	best := map[int]graded{}
	for u, g := range q.Judgments {
		for _, i := range d.byURL[u] {
			if b := best[i]; g > b.grade || g == b.grade && u < b.url {
				best[i] = graded{u, g}
			}
		}
	}
	gs := slices.Collect(maps.Values(best))
	slices.SortFunc(gs, func(a, b graded) int { return cmp.Or(b.grade-a.grade, strings.Compare(a.url, b.url)) })
	var ranked []string
	used := map[string]bool{}
	for _, g := range gs {
		if g.grade > 0 && !used[g.url] {
			used[g.url] = true
			ranked = append(ranked, g.url)
		}
	}
	return ranked, len(ranked)
}

// sharedJudged counts the judged relevant records, over all queries, that
// share a group with another judged relevant for the same query (all but
// the best of each such group), and the queries that have any.
func (d *directory) sharedJudged(qs []releval.Query) (records, queries int) {
	for _, q := range qs {
		per := map[int]int{}
		for u, g := range q.Judgments {
			if g <= 0 {
				continue
			}
			for _, i := range d.byURL[u] {
				per[i]++
			}
		}
		n := 0
		for _, c := range per {
			n += c - 1
		}
		records += n
		if n > 0 {
			queries++
		}
	}
	return records, queries
}

// repeats counts, over the queries, the top-10 hits whose server is
// already above them, and the queries that have any.
func (d *directory) repeats(x *search.Index, qs []releval.Query) (hits, queries int) {
	for _, q := range qs {
		seen := map[int]bool{}
		n := 0
		for _, h := range x.Search(q.Query, 10).Hits {
			g, ok := d.of[h.Entry.ID]
			if !ok {
				log.Fatalf("hit %s is of no group", h.Entry.ID)
			}
			if seen[g] {
				n++
			}
			seen[g] = true
		}
		hits += n
		if n > 0 {
			queries++
		}
	}
	return hits, queries
}

// lostRank finds the judged relevant records in a top 10 before whose
// server's entry ranks lower after (or not in the top 50). It lists those
// of merged entries, with where the entry's canonical record ranked before
// (a merged entry is indexed by its canonical record's name and, mostly,
// text), and counts the single records (pushed down by merged entries that
// rose above them).
func (d *directory) lostRank(before, after *search.Index, qs []releval.Query) (merged []string, single int) {
	for _, q := range qs {
		rankAfter := map[int]int{}
		for i, h := range after.Search(q.Query, 50).Hits {
			rankAfter[d.of[h.Entry.ID]] = i + 1
		}
		rankBefore := map[string]int{}
		hits := before.Search(q.Query, 50).Hits
		for i, h := range hits {
			rankBefore[h.Entry.ID] = i + 1
		}
		for i, h := range hits[:min(10, len(hits))] {
			if q.Judgments[h.Entry.WebsiteURL] <= 0 {
				continue
			}
			g := d.groups[d.of[h.Entry.ID]]
			r := rankAfter[d.of[h.Entry.ID]]
			switch {
			case r != 0 && r <= i+1:
			case len(g.Members) == 1:
				single++
			default:
				merged = append(merged, fmt.Sprintf("  %-12s %s, %d → %d (%d records; canonical %s was %d)",
					q.QID, h.Entry.Name, i+1, r, len(g.Members), g.Members[0].Name, rankBefore[g.ID]))
			}
		}
	}
	return merged, single
}

// describe is hit i as a cell of the top-5 table.
func (d *directory) describe(hits []mcpdir.Hit, i int) string {
	if i >= len(hits) {
		return ""
	}
	e := hits[i].Entry
	s := fmt.Sprintf("`%s` (%s)", e.Name, cmp.Or(e.Source, "starter"))
	if n := len(d.groups[d.of[e.ID]].Members); n > 1 {
		if len(e.Aliases) > 0 {
			s += fmt.Sprintf(", %d records merged", n)
		} else {
			s += fmt.Sprintf(", 1 of %d records", n)
		}
	}
	return s
}

func counts(m map[string]int) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(s, ", ")
}

func sizeList(sizes map[int]int) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(sizes)) {
		if k > 1 {
			s = append(s, fmt.Sprintf("%d of %d records", sizes[k], k))
		}
	}
	return strings.Join(s, ", ")
}
