package search

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// TestRelevance is the ranking-quality gate over the judged queries of
// ../shared/data/relevance/dev.jsonl (see its README). Run with -v for a
// line per query.
func TestRelevance(t *testing.T) {
	x := loadIndex(t)
	qs := readQueries(t, filepath.Join(sharedData(t), "relevance", "dev.jsonl"))
	r := evaluate(t, x, qs)
	t.Log("dev.jsonl:\n" + r.Table())
	if n := r.Kinds["overall"].MeanNDCG(); n < 0.80 {
		t.Errorf("overall nDCG@10 = %.3f, want >= 0.80", n)
	}
	for _, kind := range []string{"typo", "synonym", "agent-task"} {
		if k := r.Kinds[kind]; k == nil || k.MeanNDCG() < 0.75 {
			t.Errorf("%s nDCG@10 below 0.75 (%+v)", kind, k)
		}
	}
	if res := x.Search("zxqv plorbnik", 10); res.Total != 0 {
		t.Errorf("nonsense query matched %d entries", res.Total)
	}
}

// TestRelevanceExtra checks our own judged cases, for what dev.jsonl lacks:
// abbreviations (k8s, tts, ocr, gh), typos in other words (kubernets,
// gihtub), camelCase names split in briefs (ElevenLabs, TickTick), words
// split where names join them, prefixes (postgre) and more out-of-domain
// questions.
func TestRelevanceExtra(t *testing.T) {
	x := loadIndex(t)
	r := evaluate(t, x, readQueries(t, filepath.Join("testdata", "extra-judgments.jsonl")))
	t.Log("testdata/extra-judgments.jsonl:\n" + r.Table())
	if n := r.Kinds["overall"].MeanNDCG(); n < 0.80 {
		t.Errorf("overall nDCG@10 = %.3f, want >= 0.80", n)
	}
}

// TestRelevanceSentences is the gate over our own natural-language set
// (testdata/nl-dev.jsonl, see testdata/README.md): everyday paraphrases,
// agent tasks, multi-constraint asks, questions, jargon and other
// languages. It needs the corpus, not the shared judged sets.
func TestRelevanceSentences(t *testing.T) {
	x := loadIndex(t)
	qs := readQueries(t, filepath.Join("testdata", "nl-dev.jsonl"))
	log := verboseLog(t)
	r := releval.Evaluate(qs, engine(x), log)
	t.Log("testdata/nl-dev.jsonl:\n" + r.Table())
	gate(t, "", r, minSentencesNDCG, minSentencesKindNDCG, maxSentencesMissed, len(qs))
	for _, a := range r.Answered {
		t.Errorf("out-of-domain query matched entries: %s", a)
	}
}

// verboseLog is where Evaluate writes each query's line: the test's log
// under -v, else nowhere.
func verboseLog(t *testing.T) func(string) {
	if !testing.Verbose() {
		return nil
	}
	return func(s string) { t.Log(s) }
}

// plainBM25 is the baseline printed beside the engine: plain BM25 over
// the corpus (releval.NewBM25), 50 results a query.
func plainBM25(t *testing.T) func(string) ([]string, int) {
	entries, _ := loadCorpus(t)
	bm := releval.NewBM25(entries)
	return func(q string) ([]string, int) { return bm.Search(q, 50) }
}

// gate fails the test where a report falls below its bars: the overall
// nDCG@10, every kind's, the queries with nothing relevant in their top 10,
// and those that answer nothing.
func gate(t *testing.T, name string, r *releval.Report, overall, kind float64, missed, empty int) {
	t.Helper()
	o := r.Kinds["overall"]
	if n := o.MeanNDCG(); n < overall {
		t.Errorf("%soverall nDCG@10 = %.3f, want >= %.2f", name, n, overall)
	}
	for k, v := range r.Kinds {
		if v.Scored > 0 && v.MeanNDCG() < kind {
			t.Errorf("%s%s nDCG@10 = %.3f, want >= %.2f", name, k, v.MeanNDCG(), kind)
		}
	}
	if len(o.Missed) > missed {
		t.Errorf("%s%d queries have nothing relevant in the top 10, want at most %d: %v", name, len(o.Missed), missed, o.Missed)
	}
	if o.Empty > empty {
		t.Errorf("%s%d queries answer nothing, want at most %d", name, o.Empty, empty)
	}
}

// The natural-language gate, a little below what the ranking measures
// (docs/BENCHMARKS.md), so that a change that loses ground fails.
const (
	minSentencesNDCG     = 0.55
	minSentencesKindNDCG = 0.45
	maxSentencesMissed   = 6
)

// evaluate runs judged queries and fails the test for misses (a judged
// relevant entry exists but none is in the top 10) and for out-of-domain
// queries that match anything.
func evaluate(t *testing.T, x *Index, qs []releval.Query) *releval.Report {
	t.Helper()
	log := verboseLog(t)
	r := releval.Evaluate(qs, engine(x), log)
	if o := r.Kinds["overall"]; len(o.Missed) > 0 {
		t.Errorf("%d queries have judged relevant entries but none in the top 10: %v", len(o.Missed), o.Missed)
	}
	for _, a := range r.Answered {
		t.Errorf("out-of-domain query matched entries: %s", a)
	}
	return r
}

// TestRelevanceNatural is the gate over our natural-language dev set
// (testdata/nl.jsonl, 370 queries, see testdata/README.md), on its check
// half: the ranking's weights and tables are chosen on the tune half
// (search/internal/tune), never on this one. Both halves are printed, with
// the long pasted tasks (60 words or more) apart and the plain BM25
// baseline beside; under -v, each query's line too.
func TestRelevanceNatural(t *testing.T) {
	x := loadIndex(t)
	bm25 := plainBM25(t)
	qs := readQueries(t, filepath.Join("testdata", "nl.jsonl"))
	var check *releval.Report
	for _, half := range []string{"tune", "check"} {
		part := releval.Split(qs, half)
		var log func(string)
		if testing.Verbose() { // each query's line, its half first
			log = func(s string) { t.Log(half + " " + s) }
		}
		r := releval.Evaluate(part, engine(x), log)
		b := releval.Evaluate(part, bm25, nil)
		var long []releval.Query
		for _, q := range part {
			if len(strings.Fields(q.Query)) >= 60 {
				long = append(long, q)
			}
		}
		l := releval.Evaluate(long, engine(x), nil).Kinds["overall"]
		lb := releval.Evaluate(long, bm25, nil).Kinds["overall"]
		t.Logf("testdata/nl.jsonl, %s half:\n%s(BM25: overall %.3f, %d misses, %d empty)\nlong tasks, 60 words or more: %d, nDCG@10 %.3f, %d empty (BM25: %.3f)",
			half, r.Table(), b.Kinds["overall"].MeanNDCG(), len(b.Kinds["overall"].Missed), b.Kinds["overall"].Empty,
			l.Scored, l.MeanNDCG(), l.Empty, lb.MeanNDCG())
		check = r
	}
	gate(t, "check half: ", check, minNaturalNDCG, minNaturalKindNDCG, maxNaturalMissed, maxNaturalEmpty)
}

// The gate of the natural-language set's check half, a little below what
// the ranking measures (docs/BENCHMARKS.md), so that a change that loses
// ground fails.
const (
	minNaturalNDCG     = 0.58
	minNaturalKindNDCG = 0.37
	maxNaturalMissed   = 20
	maxNaturalEmpty    = 3
)

// TestAboutDecision is the gate of the decision whether the directory is
// about a query at all, on the check half of testdata/about.jsonl (230
// queries some entry serves, 140 none does: questions about the world,
// recipes, sports results, people, gibberish, everyday words): at least
// 98% of the first are answered, and at least 90% of the second answer
// nothing. Both halves' figures, by form, are printed.
func TestAboutDecision(t *testing.T) {
	x := loadIndex(t)
	qs, err := releval.ReadAbout(filepath.Join("testdata", "about.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, half := range []string{"tune", "check"} {
		type count struct{ n, right int }
		forms := map[string]*count{}
		var in, out count
		var wrong []string
		for _, q := range qs {
			if releval.Half(q.QID) != half {
				continue
			}
			answered := x.Search(q.Query, 1).Total > 0
			right := answered == (q.Domain == "in")
			c := forms[q.Domain+" "+q.Form]
			if c == nil {
				c = &count{}
				forms[q.Domain+" "+q.Form] = c
			}
			for _, c := range []*count{c, map[bool]*count{true: &in, false: &out}[q.Domain == "in"]} {
				c.n++
				if right {
					c.right++
				}
			}
			if !right {
				wrong = append(wrong, fmt.Sprintf("%s %q", q.Domain, q.Query))
			}
		}
		var b strings.Builder
		for _, f := range slices.Sorted(maps.Keys(forms)) {
			fmt.Fprintf(&b, "  %-24s %3d of %3d right\n", f, forms[f].right, forms[f].n)
		}
		t.Logf("testdata/about.jsonl, %s half: in-domain answered %d of %d (%.1f%%), out-of-domain answered nothing %d of %d (%.1f%%)\n%s  wrong: %s",
			half, in.right, in.n, 100*float64(in.right)/float64(in.n), out.right, out.n, 100*float64(out.right)/float64(out.n),
			b.String(), strings.Join(wrong, "; "))
		if half == "check" {
			if float64(in.right) < 0.98*float64(in.n) {
				t.Errorf("check half: %d of %d in-domain queries answered, want at least 98%%", in.right, in.n)
			}
			if float64(out.right) < 0.90*float64(out.n) {
				t.Errorf("check half: %d of %d out-of-domain queries answered nothing, want at least 90%%", out.right, out.n)
			}
		}
	}
}

// TestRelevanceFresh measures the fresh set (testdata/fresh.jsonl, 50
// queries, see testdata/README.md): one query for each of 50 corpus
// entries drawn at random, written by a newcomer before any search was
// run, judged by pooling. Since issue 34's failure-shapes work it is a
// tuning set beside the tune half of nl.jsonl (TestRelevanceFresh2's set
// is the blind one); its gate only catches a change that loses ground.
// The plain BM25 baseline is printed beside it, per kind.
func TestRelevanceFresh(t *testing.T) {
	x := loadIndex(t)
	bm25 := plainBM25(t)
	qs := readQueries(t, filepath.Join("testdata", "fresh.jsonl"))
	log := verboseLog(t)
	r := releval.Evaluate(qs, engine(x), log)
	b := releval.Evaluate(qs, bm25, nil)
	t.Logf("testdata/fresh.jsonl:\n%s", r.Table())
	t.Logf("testdata/fresh.jsonl, plain BM25:\n%s", b.Table())
	gate(t, "fresh: ", r, minFreshNDCG, minFreshKindNDCG, maxFreshMissed, maxFreshEmpty)
}

// The gate of the fresh set, a little below what the ranking measures
// (docs/BENCHMARKS.md): a floor against regressions, never a target.
const (
	minFreshNDCG     = 0.42
	minFreshKindNDCG = 0.26
	maxFreshMissed   = 12
	maxFreshEmpty    = 1
)

// TestRelevanceQuality is the gate of the quality set
// (testdata/quality.jsonl over the starter directory with the live checks
// and tool warnings of testdata/quality-signals.jsonl): the entries a
// person would pick first, of those that do what the query asks, are the
// vendor's own, up and without warnings. The priors of Params are fitted
// on its tune half (go run ./search/internal/priorfit); both halves are
// printed, beside the same ranking without priors.
func TestRelevanceQuality(t *testing.T) {
	es, err := releval.QualityDirectory(filepath.Join("testdata", "quality-signals.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	x := New()
	x.Upsert(es...)
	flat := New()
	p := flat.Params()
	p.Popularity, p.Official, p.Verified, p.Up, p.Down, p.Warned, p.WarnedHigh = 0, 1, 1, 1, 1, 1, 1
	flat.SetParams(p)
	flat.Upsert(es...)
	qs := readQueries(t, filepath.Join("testdata", "quality.jsonl"))
	var check *releval.Report
	for _, half := range []string{"tune", "check"} {
		part := releval.Split(qs, half)
		log := verboseLog(t)
		r := releval.Evaluate(part, engine(x), log)
		f := releval.Evaluate(part, engine(flat), nil)
		t.Logf("testdata/quality.jsonl, %s half:\n%s(without priors: %.3f)", half, r.Table(), f.Kinds["overall"].MeanNDCG())
		check = r
	}
	gate(t, "quality, check half: ", check, minQualityNDCG, 0, maxQualityMissed, 0)
}

// The gate of the quality set's check half, a little below what the
// ranking measures (docs/BENCHMARKS.md).
const (
	minQualityNDCG   = 0.85
	maxQualityMissed = 0
)

// TestRelevanceFresh2 measures generality on a second fresh set, kept
// blind (testdata/fresh-2.jsonl, 50 queries, see testdata/README.md): made
// as fresh.jsonl was, from another random sample, and never tuned on; its
// failures are not read by those who tune. So it prints figures per kind
// beside plain BM25 and nothing per query, and its gate names no query.
func TestRelevanceFresh2(t *testing.T) {
	blindSet(t, "fresh-2.jsonl", minFresh2NDCG, minFresh2KindNDCG, maxFresh2Missed, maxFresh2Empty)
}

// TestRelevanceFresh3 is a third fresh set, made and kept as the second
// (testdata/fresh-3.jsonl, see testdata/README.md).
func TestRelevanceFresh3(t *testing.T) {
	blindSet(t, "fresh-3.jsonl", minFresh3NDCG, minFresh3KindNDCG, maxFresh3Missed, maxFresh3Empty)
}

// TestRelevanceFresh4 measures the fourth fresh set (testdata/fresh-4.jsonl,
// blind as the second and third are; see testdata/README.md).
func TestRelevanceFresh4(t *testing.T) {
	blindSet(t, "fresh-4.jsonl", minFresh4NDCG, minFresh4KindNDCG, maxFresh4Missed, maxFresh4Empty)
}

// TestRelevanceFresh5 measures the fifth fresh set (testdata/fresh-5.jsonl,
// blind as the second to fourth are; see testdata/README.md).
func TestRelevanceFresh5(t *testing.T) {
	blindSet(t, "fresh-5.jsonl", minFresh5NDCG, minFresh5KindNDCG, maxFresh5Missed, maxFresh5Empty)
}

// blindSet evaluates a blind set of testdata: its figures per kind beside
// plain BM25, nothing per query, and its gate.
func blindSet(t *testing.T, file string, overall, kind float64, missed, empty int) {
	t.Helper()
	x := loadIndex(t)
	bm25 := plainBM25(t)
	qs := readQueries(t, filepath.Join("testdata", file))
	r := releval.Evaluate(qs, engine(x), nil)
	b := releval.Evaluate(qs, bm25, nil)
	t.Logf("testdata/%s:\n%s", file, r.Table())
	t.Logf("testdata/%s, plain BM25:\n%s", file, b.Table())
	blindGate(t, strings.TrimSuffix(file, ".jsonl")+": ", r, overall, kind, missed, empty)
}

// The gate of the second fresh set, a little below what the ranking
// measured when it was judged (docs/BENCHMARKS.md): overall − 0.04, every
// kind − 0.1, misses + 2. A floor against regressions, never a target.
const (
	minFresh2NDCG     = 0.52
	minFresh2KindNDCG = 0.20
	maxFresh2Missed   = 7
	maxFresh2Empty    = 1
)

// The gate of the third fresh set, set as the second's from what the
// ranking measured when it was judged (docs/BENCHMARKS.md).
const (
	minFresh3NDCG     = 0.61
	minFresh3KindNDCG = 0.11
	maxFresh3Missed   = 3
	maxFresh3Empty    = 1
)

// The gate of the fourth fresh set, set as the second's from what the
// ranking measured when it was judged (docs/BENCHMARKS.md).
const (
	minFresh4NDCG     = 0.69
	minFresh4KindNDCG = 0.38
	maxFresh4Missed   = 4
	maxFresh4Empty    = 1
)

// The gate of the fifth fresh set, set as the fourth's.
const (
	minFresh5NDCG     = 0.63
	minFresh5KindNDCG = 0.24
	maxFresh5Missed   = 4
	maxFresh5Empty    = 1
)

// TestRelevanceFresh6 measures the sixth fresh set (testdata/fresh-6.jsonl,
// 40 paraphrases, see testdata/README.md): made as the others, of the kind
// they score lowest on, as a tuning set: its failures are read, as
// fresh.jsonl's are, so it prints a line per query under -v.
func TestRelevanceFresh6(t *testing.T) {
	x := loadIndex(t)
	qs := readQueries(t, filepath.Join("testdata", "fresh-6.jsonl"))
	r := releval.Evaluate(qs, engine(x), verboseLog(t))
	b := releval.Evaluate(qs, plainBM25(t), nil)
	t.Logf("testdata/fresh-6.jsonl:\n%s", r.Table())
	t.Logf("testdata/fresh-6.jsonl, plain BM25:\n%s", b.Table())
	gate(t, "fresh-6: ", r, minFresh6NDCG, minFresh6NDCG, maxFresh6Missed, maxFresh6Empty)
}

// TestRelevanceFresh7 measures the seventh fresh set (testdata/fresh-7.jsonl,
// 40 paraphrases made as the sixth's, from another sample), kept blind as
// the second to fifth are.
func TestRelevanceFresh7(t *testing.T) {
	blindSet(t, "fresh-7.jsonl", minFresh7NDCG, minFresh7NDCG, maxFresh7Missed, maxFresh7Empty)
}

// The gates of the sixth and seventh fresh sets (one kind each), set as
// the second's from what the ranking measured when they were judged
// (0.608 and 0.591, 4 misses each, none empty): overall − 0.04, misses + 2.
const (
	minFresh6NDCG   = 0.56
	maxFresh6Missed = 6
	maxFresh6Empty  = 1
	minFresh7NDCG   = 0.55
	maxFresh7Missed = 6
	maxFresh7Empty  = 1
)

// blindGate is gate for a blind set: it says by how much a report falls
// below its bars, per kind, and names no query.
func blindGate(t *testing.T, name string, r *releval.Report, overall, kind float64, missed, empty int) {
	t.Helper()
	o := r.Kinds["overall"]
	if n := o.MeanNDCG(); n < overall {
		t.Errorf("%soverall nDCG@10 = %.3f, want >= %.2f", name, n, overall)
	}
	for k, v := range r.Kinds {
		if v.Scored > 0 && v.MeanNDCG() < kind {
			t.Errorf("%s%s nDCG@10 = %.3f, want >= %.2f", name, k, v.MeanNDCG(), kind)
		}
	}
	if len(o.Missed) > missed {
		t.Errorf("%s%d queries have nothing relevant in the top 10, want at most %d", name, len(o.Missed), missed)
	}
	if o.Empty > empty {
		t.Errorf("%s%d queries answer nothing, want at most %d", name, o.Empty, empty)
	}
}

// TestSampledAsks measures the everyday requests written blind from random
// samples of the corpus (testdata/sampled-asks.jsonl, 4,480 requests, each
// for the one entry it was written for; see testdata/README.md): how many
// rank that entry in the top 10 and the top 50, and how many answer
// nothing. The knowledge of concepts.txt was added by reading their
// answers, so this is a set tuned on, and its gate guards what was added.
func TestSampledAsks(t *testing.T) {
	x := loadIndex(t)
	asks, err := releval.ReadLines[struct{ Query, Target string }](filepath.Join("testdata", "sampled-asks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(asks)
	var top10, top50, empty int
	for _, q := range asks {
		r := x.Search(q.Query, 50)
		if len(r.Hits) == 0 {
			empty++
		}
		if i := slices.IndexFunc(r.Hits, func(h mcpdir.Hit) bool { return h.Entry.WebsiteURL == q.Target }); i >= 0 {
			top50++
			if i < 10 {
				top10++
			}
		}
	}
	t.Logf("testdata/sampled-asks.jsonl: %d requests, the entry each was written for in the top 10 of %d, the top 50 of %d; %d answer nothing", n, top10, top50, empty)
	if top10 < minSampledTop10 || top50 < minSampledTop50 || empty > maxSampledEmpty {
		t.Errorf("sampled asks: top 10 %d (want at least %d), top 50 %d (at least %d), empty %d (at most %d)",
			top10, minSampledTop10, top50, minSampledTop50, empty, maxSampledEmpty)
	}
}

// The gate of the sampled asks, a little below what the engine scores
// (1,558, 2,603 and 19 at d6c38ea; 1,522, 2,576 and 25 when the last of
// them were added). Before the
// knowledge read from them: 174, 358 and 27 of the first 1,280 paraphrases
// and questions (at 806fc5c); 452, 704 and 10 of the next 1,280, 358, 481
// and 7 of the 640 in other languages and pasted tasks, 205, 333 and 9 of
// the next 640, and 215, 360 and 1 of the last 640, half of them
// questions (at 366c57f).
const (
	minSampledTop10 = 1520
	minSampledTop50 = 2560
	maxSampledEmpty = 25
)
