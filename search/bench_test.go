package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/memlimit"
	"github.com/mcpdir/mcpdir/search/internal/releval"
	"github.com/mcpdir/mcpdir/search/lexicon"
)

// BenchmarkSearch runs the judged dev queries against the corpus and
// reports latency percentiles per query kind:
//
//	go test ./search -run '^$' -bench BenchmarkSearch -benchtime 40000x
//
// With MCPDIR_BENCH_SCALE=10 (or 100) it runs on that many times the
// corpus, synthesised as variants of real entries, and reports build time
// and heap too (100x needs about 2 GB, under the memory policy a replica
// runs under, and a minute to build):
//
//	MCPDIR_BENCH_SCALE=100 go test ./search -run '^$' -bench BenchmarkSearch -benchtime 2000x -timeout 30m
func BenchmarkSearch(b *testing.B) {
	benchSearch(b, benchQueries(b), false)
}

// BenchmarkSearchSentences runs the natural-language dev set (testdata/nl.jsonl:
// paraphrases, questions, multi-constraint asks, other languages, and agent
// tasks, 40 of them pasted tasks of 60 to 143 words), a task of 30 words,
// one of 209 words (927 bytes) and one as long as a search reads (218
// words in 1,874 bytes):
//
//	go test ./search -run '^$' -bench BenchmarkSearchSentences -benchtime 20000x
func BenchmarkSearchSentences(b *testing.B) {
	qs := readQueries(b, filepath.Join("testdata", "nl.jsonl"))
	qs = append(qs,
		releval.Query{QID: "task-30", Kind: "task-30-words", Query: task30},
		releval.Query{QID: "task-200", Kind: "task-200-words", Query: task200},
		releval.Query{QID: "task-longest", Kind: "task-longest", Query: taskLongest})
	benchSearch(b, qs, false)
}

// task30 is an agent's task of 30 words.
const task30 = "Every morning, look through the open pull requests in our GitHub repository, summarise what changed in " +
	"each of them and post the digest to the engineering team's Slack channel before standup"

// task200 is a task of 209 words in 927 bytes, pasted as people paste
// them.
const task200 = "Hi team, quick one for the bot. We run a small shop on Shopify and our stock of tea, cups and pots is kept " +
	"in a Google sheet that Sam and I edit by hand. Each day a few orders come in, and we lose track of what is left. " +
	"Last week we sold out of green tea and did not know for two days. Can you set up a job that reads new orders from " +
	"the shop each hour, takes the items off the sheet, and when a row drops below ten, sends me a note on Slack and " +
	"adds a line to our to do list so I can call the farm and order more. It should also keep a log of each change so " +
	"we can see what went wrong if a count is off. Please do not touch prices or the shop page, and do not email our " +
	"clients. If an order is refunded, put the items back. At the end of each week, make a short report of what sold, " +
	"what ran low and what we need to buy, and post it to the team channel on Friday at five. Thanks a lot, and ask me " +
	"if you need a key or a login."

// taskLongest is a task of 218 words in 1,874 bytes, line breaks and all:
// as long as a search reads (mcpdir.SearchedKeywordsBytes), in long words.
const taskLongest = "Context: our observability platform ingests application telemetry from seventeen Kubernetes clusters " +
	"distributed across three cloud providers.\n\nObjective: investigate intermittent latency regressions affecting the " +
	"checkout microservice since yesterday's deployment, correlating distributed traces, Prometheus metrics and " +
	"structured application logs.\n\nRequirements:\n- retrieve OpenTelemetry traces whose duration exceeds two " +
	"seconds, grouped by endpoint and downstream dependency;\n- compare Grafana dashboards for CPU throttling, memory " +
	"pressure and garbage collection pauses before and after the deployment;\n- query Elasticsearch for exceptions, " +
	"timeouts and connection resets emitted by payment-gateway, inventory-reservation and notification-dispatcher " +
	"services;\n- inspect Kubernetes events, pod restarts, horizontal autoscaler decisions and node conditions within " +
	"the production namespaces;\n- summarise database slow-query statistics from PostgreSQL replicas, including lock " +
	"contention, sequential scans and connection pool saturation;\n- check Sentry for newly introduced regressions " +
	"attributed to the responsible release, with stack traces and affected customers;\n- produce a chronological " +
	"incident timeline with hypotheses ranked by supporting evidence.\n\nConstraints: strictly read-only access; never " +
	"restart workloads, modify deployments, acknowledge alerts or silence PagerDuty incidents. Redact customer " +
	"identifiers, authentication tokens and personally identifiable information from every excerpt. Deliver findings " +
	"as a Markdown report attached to the Jira ticket, notifying the platform engineering channel on Slack afterwards, " +
	"alongside recommended remediation, monitoring improvements, alerting thresholds, capacity adjustments, rollback " +
	"considerations, ownership assignments, communication templates and follow-up verification checklists for " +
	"everybody involved."

// benchSearch asks the queries in turn; with facets, counting the facets of
// every match as REST search does.
func benchSearch(b *testing.B, qs []releval.Query, facets bool) {
	scale := 1
	if s := os.Getenv("MCPDIR_BENCH_SCALE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("MCPDIR_BENCH_SCALE=%q: want a positive integer", s)
		}
		scale = n
	}
	entries, raw := loadCorpus(b)
	x := scaledIndex(b, entries, raw, scale)
	byKind := map[string][]time.Duration{}
	byQuery := make([][]time.Duration, len(qs))
	b.ResetTimer()
	for i := range b.N {
		q := qs[i%len(qs)]
		start := time.Now()
		x.Find(mcpdir.Query{Text: q.Query, Limit: 50, Facets: facets}) // 50: as REST and search_mcp ask by default
		took := time.Since(start)
		byKind[q.Kind] = append(byKind[q.Kind], took)
		byQuery[i%len(qs)] = append(byQuery[i%len(qs)], took)
	}
	b.StopTimer()
	var all []time.Duration
	kinds := make([]string, 0, len(byKind))
	for k, ds := range byKind {
		kinds = append(kinds, k)
		all = append(all, ds...)
	}
	sort.Strings(kinds)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d entries\n%-14s %9s %9s\n", x.Len(), "kind", "p50", "p99")
	for _, k := range kinds {
		p50, p99 := percentiles(byKind[k])
		fmt.Fprintf(&sb, "%-14s %9s %9s\n", k, p50, p99)
	}
	p50, p99 := percentiles(all)
	fmt.Fprintf(&sb, "%-14s %9s %9s\nslowest queries by median:", "all", p50, p99)
	slow := make([]int, len(qs))
	for i := range slow {
		slow[i] = i
	}
	median := func(i int) time.Duration { p, _ := percentiles(byQuery[i]); return p }
	sort.Slice(slow, func(i, j int) bool { return median(slow[i]) > median(slow[j]) })
	for _, i := range slow[:min(3, len(slow))] {
		fmt.Fprintf(&sb, "\n  %9s %q", median(i), qs[i].Query)
	}
	if b.N >= len(qs) {
		fmt.Println(sb.String())
	}
	b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
}

// BenchmarkBuild indexes the corpus with the bulk path and reports the
// index's heap against the corpus's raw bytes.
func BenchmarkBuild(b *testing.B) {
	entries, raw := loadCorpus(b)
	for b.Loop() {
		x := New()
		x.Upsert(entries...)
	}
	b.StopTimer()
	before := heapInUse()
	x := New()
	x.Upsert(entries...)
	b.ReportMetric(float64(heapInUse()-before)/float64(raw), "index-bytes/raw-byte")
	runtime.KeepAlive(x)
}

// benchQueries are the dev queries (all kinds, out-of-domain ones too).
func benchQueries(b testing.TB) []releval.Query {
	return readQueries(b, filepath.Join(sharedData(b), "relevance", "dev.jsonl"))
}

var scaled struct {
	scale int
	x     *Index
}

// scaledIndex is the corpus indexed scale times, built once per test binary.
func scaledIndex(b *testing.B, entries []*mcpdir.Entry, raw int64, scale int) *Index {
	if scale == 1 {
		return loadIndex(b)
	}
	asAReplica.Do(func() {
		if soft, _, _ := memlimit.Set(os.DirFS("/")); soft > 0 {
			memlimit.Follow(soft, memlimit.Headroom)
		}
	})
	if scaled.scale != scale {
		scaled.x, scaled.scale = nil, 0
		scaled.x, scaled.scale = buildScaled(b, entries, raw, scale), scale
	}
	return scaled.x
}

// asAReplica applies, once, the memory policy serve applies (memlimit:
// a soft limit at the live heap plus a headroom): what /usr/bin/time
// reports of a scaled benchmark's peak is then what a replica's would be.
var asAReplica sync.Once

// buildScaled indexes scale copies of the corpus, each entry of a copy a
// variant of a real one (another name prefix or suffix, its brief's words
// shuffled), a copy at a time as a replica reads its store, and reports the
// build time and the heap the index keeps once the copies are gone.
func buildScaled(b *testing.B, entries []*mcpdir.Entry, raw int64, scale int) *Index {
	b.Helper()
	before := heapInUse()
	start := time.Now()
	x := New()
	x.SetResultCache(0)
	x.Upsert(entries...)
	vs := newVariants(entries)
	for k := 1; k < scale; k++ {
		x.Upsert(vs.copy(k)...)
	}
	took := time.Since(start)
	after := heapInUse()
	rawScaled := raw * int64(scale)
	fmt.Printf("%dx: %d entries, raw %.0f MB; build %s; index heap %.0f MB (%.2fx raw); with the corpus %.0f MB\n",
		scale, x.Len(), mb(rawScaled), took.Round(time.Millisecond), mb(after-before),
		float64(after-before)/float64(rawScaled), mb(after))
	return x
}

// scaledEntries are the entries and scale-1 copies of them (variants).
func scaledEntries(entries []*mcpdir.Entry, scale int) []*mcpdir.Entry {
	all := make([]*mcpdir.Entry, 0, len(entries)*scale)
	all = append(all, entries...)
	vs := newVariants(entries)
	for k := 1; k < scale; k++ {
		all = append(all, vs.copy(k)...)
	}
	return all
}

// variants makes copies of a corpus, each entry of a copy a variant of a
// real one (another name prefix or suffix, its brief's words shuffled);
// copies are made in order, 1 first.
type variants struct {
	entries []*mcpdir.Entry
	rng     *rand.Rand
}

func newVariants(entries []*mcpdir.Entry) *variants {
	return &variants{entries: entries, rng: rand.New(rand.NewPCG(1, 2))}
}

var affixes = []string{"pro", "lite", "plus", "next", "cloud", "local", "fast", "secure", "open", "community",
	"enterprise", "core", "hub", "kit", "bridge", "studio", "agent", "ai", "v2", "x"}

func (vs *variants) copy(k int) []*mcpdir.Entry {
	rng := vs.rng
	out := make([]*mcpdir.Entry, 0, len(vs.entries))
	for _, e := range vs.entries {
		v := *e
		a := affixes[rng.IntN(len(affixes))]
		if rng.IntN(2) == 0 {
			v.Name = a + "-" + e.Name + "-" + strconv.Itoa(k)
		} else {
			v.Name = e.Name + "-" + a + "-" + strconv.Itoa(k)
		}
		words := strings.Fields(e.Brief)
		rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		v.Brief = strings.Join(words, " ")
		v.WebsiteURL = e.WebsiteURL + "-" + strconv.Itoa(k)
		v.ID = mcpdir.EntryID(v.NaturalKey())
		v.Packages = []mcpdir.Package{{RegistryType: "npm", Identifier: v.Name}}
		out = append(out, &v)
	}
	return out
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return at(0.50).Round(time.Microsecond / 10), at(0.99).Round(time.Microsecond / 10)
}

// BenchmarkSearchNew asks only queries never asked before, as bench/ab.sh's
// AB_NEW does over REST: the judged queries of every set, then keywords of
// one to four words of the corpus's briefs, each query once (the result
// cache is off; the cache of query words stays, as in the server):
//
//	go test ./search -run '^$' -bench BenchmarkSearchNew -benchtime 20000x
func BenchmarkSearchNew(b *testing.B) {
	benchSearch(b, newQueries(b, max(b.N, 1)), false)
}

// BenchmarkSearchNewFacets is BenchmarkSearchNew as REST search asks: with
// the facets of every match counted.
func BenchmarkSearchNewFacets(b *testing.B) {
	benchSearch(b, newQueries(b, max(b.N, 1)), true)
}

// BenchmarkSearchAsks asks sentences never asked before, as bench/run.sh's
// rest-asks load does over REST: the 4,480 sampled asks
// (testdata/sampled-asks.jsonl), with facets as REST counts them; at
// -benchtime 4480x each is asked once:
//
//	go test ./search -run '^$' -bench BenchmarkSearchAsks -benchtime 4480x
func BenchmarkSearchAsks(b *testing.B) {
	asks, err := releval.ReadLines[releval.Query](filepath.Join("testdata", "sampled-asks.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, asks, true)
}

// newQueries are n distinct queries: the judged ones of every set, then
// random keyword queries of the corpus's brief words.
func newQueries(tb testing.TB, n int) []releval.Query {
	qs := benchQueries(tb)
	for _, f := range []string{"nl.jsonl", "nl-dev.jsonl", "extra-judgments.jsonl"} {
		qs = append(qs, readQueries(tb, filepath.Join("testdata", f))...)
	}
	seen := map[string]bool{}
	out := qs[:0]
	for _, q := range qs {
		if !seen[q.Query] {
			seen[q.Query] = true
			out = append(out, q)
		}
	}
	qs = out
	entries, _ := loadCorpus(tb)
	words := map[string]bool{}
	for _, e := range entries {
		for _, w := range strings.FieldsFunc(strings.ToLower(e.Brief), func(r rune) bool { return r < 'a' || r > 'z' }) {
			if len(w) >= 3 {
				words[w] = true
			}
		}
	}
	vocab := make([]string, 0, len(words))
	for w := range words {
		vocab = append(vocab, w)
	}
	sort.Strings(vocab)
	rng := rand.New(rand.NewPCG(25, 36))
	for len(qs) < n {
		ws := make([]string, 1+rng.IntN(4))
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		if q := strings.Join(ws, " "); !seen[q] {
			seen[q] = true
			qs = append(qs, releval.Query{QID: "new", Kind: "keywords-new", Query: q})
		}
	}
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}

// BenchmarkTypoWalk justifies dictionary.next: the typo walks new keyword
// queries make (the words of BenchmarkSearchNew's keyword queries that the
// parser takes for typos: rare, 4 to MaxTypoLen letters), each walked in
// full and then leaving out the words the parser would drop (those in no
// more than lexicon's typoDominance (8) times the word's own entries), in
// turn, in one loop. Reports each walk's mean time and pruned/full:
//
//	go test ./search -run '^$' -bench BenchmarkTypoWalk -benchtime 20x
func BenchmarkTypoWalk(b *testing.B) {
	x := loadIndex(b)
	type walk struct {
		w      string
		budget int
		over   uint32
	}
	var walks []walk
	seen := map[string]bool{}
	for _, q := range newQueries(b, 20000) {
		if q.Kind != "keywords-new" {
			continue
		}
		for _, w := range strings.Fields(q.Query) {
			id, ok := x.termIDs[w]
			if seen[w] || !ok || len(w) < 4 || len(w) > lexicon.MaxTypoLen || x.terms[id].df > uint32(x.live/5000) {
				continue
			}
			seen[w] = true
			budget := 1
			if len(w) >= 8 {
				budget = 2
			}
			walks = append(walks, walk{w, budget, 8 * x.terms[id].df})
		}
	}
	var fw fuzzyWalk
	var full, pruned time.Duration
	b.ResetTimer()
	for range b.N {
		for _, k := range walks {
			t0 := time.Now()
			fw.run(&x.dict, x.terms, k.w, k.budget, 0)
			t1 := time.Now()
			fw.run(&x.dict, x.terms, k.w, k.budget, k.over)
			pruned += time.Since(t1)
			full += t1.Sub(t0)
		}
	}
	n := float64(b.N * len(walks))
	b.ReportMetric(float64(full.Nanoseconds())/n, "full-ns/walk")
	b.ReportMetric(float64(pruned.Nanoseconds())/n, "pruned-ns/walk")
	b.ReportMetric(float64(pruned)/float64(full), "pruned/full")
	b.ReportMetric(float64(len(walks)), "walks")
}

// BenchmarkSearchUnknownWords asks queries of 200 distinct words of 6 to
// 10 random letters, no two queries alike: the most near-spelling walks a
// query could ask for, which lexicon's maxFuzzyLookups bounds (7.3 ms a
// query before the bound, 1.5 to 1.8 ms with it, beside a pasted task's 1.2):
//
//	go test ./search -run '^$' -bench BenchmarkSearchUnknownWords -benchtime 200x
func BenchmarkSearchUnknownWords(b *testing.B) {
	x := loadIndex(b)
	rng := rand.New(rand.NewPCG(1, 2))
	qs := make([]string, b.N)
	for i := range qs {
		words := make([]string, 200)
		for k := range words {
			w := make([]byte, 6+rng.IntN(5))
			for j := range w {
				w[j] = byte('a' + rng.IntN(26))
			}
			words[k] = string(w)
		}
		qs[i] = strings.Join(words, " ")
	}
	b.ResetTimer()
	for _, q := range qs {
		x.Search(q, 10)
	}
}

// BenchmarkPrunePrior asks each dev query (or, with MCPDIR_BENCH_SENTENCES
// set, each of BenchmarkSearchSentences's) with ranking's prior bound off
// and on in turn (prunePrior), each query first in either mode in turn, and
// reports both modes' percentiles and on/off ratios: the two share the
// machine's load, which alternating builds do not.
//
//	MCPDIR_BENCH_SCALE=100 go test ./search -run '^$' -bench BenchmarkPrunePrior -benchtime 8000x -timeout 30m
func BenchmarkPrunePrior(b *testing.B) {
	qs := benchQueries(b)
	if os.Getenv("MCPDIR_BENCH_SENTENCES") != "" {
		qs = append(readQueries(b, filepath.Join("testdata", "nl.jsonl")),
			releval.Query{QID: "task-30", Kind: "task-30-words", Query: task30},
			releval.Query{QID: "task-200", Kind: "task-200-words", Query: task200},
			releval.Query{QID: "task-longest", Kind: "task-longest", Query: taskLongest})
	}
	scale := 1
	if s := os.Getenv("MCPDIR_BENCH_SCALE"); s != "" {
		scale, _ = strconv.Atoi(s)
	}
	entries, raw := loadCorpus(b)
	x := scaledIndex(b, entries, raw, max(scale, 1))
	x.SetResultCache(0)
	defer x.SetResultCache(DefaultResultCache)
	defer func() { prunePrior = true }()
	var by [2][]time.Duration // off, on
	b.ResetTimer()
	for i := range b.N {
		q := qs[i%len(qs)].Query
		for k := range 2 {
			on := (k+i+i/len(qs))%2 == 1
			prunePrior = on
			start := time.Now()
			x.Search(q, 50)
			took := time.Since(start)
			if on {
				by[1] = append(by[1], took)
			} else {
				by[0] = append(by[0], took)
			}
		}
	}
	b.StopTimer()
	var p50, p99, mean [2]time.Duration
	for m := range by {
		p50[m], p99[m] = percentiles(by[m])
		for _, d := range by[m] {
			mean[m] += d
		}
		mean[m] /= time.Duration(max(len(by[m]), 1))
	}
	if b.N >= len(qs) {
		fmt.Printf("%d entries\noff: p50 %v p99 %v mean %v\non:  p50 %v p99 %v mean %v\non/off: p50 %.3f p99 %.3f mean %.3f\n",
			x.Len(), p50[0], p99[0], mean[0], p50[1], p99[1], mean[1],
			float64(p50[1])/float64(p50[0]), float64(p99[1])/float64(p99[0]), float64(mean[1])/float64(mean[0]))
	}
	b.ReportMetric(float64(p99[1])/float64(max(p99[0], 1)), "p99-on/off")
}
