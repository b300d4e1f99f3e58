package search

import (
	"path/filepath"
	"testing"

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
	var log func(string)
	if testing.Verbose() {
		log = func(s string) { t.Log(s) }
	}
	r := releval.Evaluate(qs, engine(x), log)
	t.Log("testdata/nl-dev.jsonl:\n" + r.Table())
	o := r.Kinds["overall"]
	if n := o.MeanNDCG(); n < minSentencesNDCG {
		t.Errorf("overall nDCG@10 = %.3f, want >= %.2f", n, minSentencesNDCG)
	}
	for name, k := range r.Kinds {
		if k.Scored > 0 && k.MeanNDCG() < minSentencesKindNDCG {
			t.Errorf("%s nDCG@10 = %.3f, want >= %.2f", name, k.MeanNDCG(), minSentencesKindNDCG)
		}
	}
	if len(o.Missed) > maxSentencesMissed {
		t.Errorf("%d queries have nothing relevant in the top 10, want at most %d: %v", len(o.Missed), maxSentencesMissed, o.Missed)
	}
	for _, a := range r.Answered {
		t.Errorf("out-of-domain query matched entries: %s", a)
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
	var log func(string)
	if testing.Verbose() {
		log = func(s string) { t.Log(s) }
	}
	r := releval.Evaluate(qs, engine(x), log)
	if o := r.Kinds["overall"]; len(o.Missed) > 0 {
		t.Errorf("%d queries have judged relevant entries but none in the top 10: %v", len(o.Missed), o.Missed)
	}
	for _, a := range r.Answered {
		t.Errorf("out-of-domain query matched entries: %s", a)
	}
	return r
}
