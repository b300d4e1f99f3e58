#!/usr/bin/env bash
# bench/count.sh REV_A REV_B: the instructions each revision's search
# executes over the 4,480 sampled asks (sentences; with COUNT_NEW=1, the
# 20,000 queries never asked before of BenchmarkSearchNew, mostly keywords,
# in revisions that have it), counted by valgrind's
# cachegrind, per function and in all, side by side. Unlike a timing, a
# count is the same on every run of a build, however busy the machine: it
# tells what a change removes or adds, though not what a cache miss costs
# (bench/ab.sh times that). A benchmark written into each revision's tree
# (one op: the 4,480 asks searched once, on the corpus's index built once
# a process) runs once (1x: the index built, one pass) and then three times
# (2x: one op, then two), so that the difference is two passes and nothing
# of the building. The collector is off (GOGC=off): when it runs is not the
# same from run to run, and it is no part of a change but what the change
# allocates (the benchmarks' B/op tell that). COUNT_TOP functions are
# listed (25 by default). COUNT_EVENT=D1mr (or DLmr) counts the data reads
# that miss the first-level (or last-level) cache of cachegrind's model of
# this machine's caches, instead of instructions: as exact from run to
# run, it tells what a change of layout saves.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/count.sh REV_A REV_B" >&2; exit 2; }
cd "$(dirname "$0")/.."
. bench/lib.sh
need_corpus bench/count.sh
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The two sides are a and b, so that a revision may be counted against itself.
for side in a b; do
  rev=$1; [ $side = a ] || rev=$2
  git worktree add -q --detach "$work/src" "$rev"
  cat > "$work/src/search/count_pass_test.go" <<'GO'
package search

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/search/internal/releval"
)

// countQueries are the queries a pass searches: the sampled asks.
var countQueries = func(b *testing.B) []releval.Query {
	asks, err := releval.ReadLines[releval.Query](filepath.Join("testdata", "sampled-asks.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	return asks
}

var (
	countOnce sync.Once
	countQs   []releval.Query
)

func BenchmarkCountPass(b *testing.B) {
	countOnce.Do(func() { countQs = countQueries(b) })
	x := loadIndex(b)
	for range b.N {
		for _, q := range countQs {
			x.Find(mcpdir.Query{Text: q.Query, Limit: 50, Facets: true})
		}
	}
}
GO
  if [ "${COUNT_NEW:-}" = 1 ]; then # the queries of BenchmarkSearchNew instead
    cat >> "$work/src/search/count_pass_test.go" <<'GO'

func init() {
	countQueries = func(b *testing.B) []releval.Query { return newQueries(b, 20000) }
}
GO
  fi
  (cd "$work/src" && go test -c -o "$work/search-$side.test" ./search)
  cp -r "$work/src/search/testdata" "$work/testdata-$side"
  git worktree remove --force "$work/src"
done
event=${COUNT_EVENT:-Ir} sim=no
[ "$event" = Ir ] || sim=yes
# count SIDE Nx: cachegrind's per-function counts of one run, as "count\tfunction";
# a run that fails leaves its log and no counts.
count() {
  mkdir -p "$work/run-$1-$2/testdata" && cp -r "$work/testdata-$1/." "$work/run-$1-$2/testdata"
  # valgrind cannot decode RDTSCP, which the runtime reads the clock with
  # on CPUs that have it: the runtime is told to do without.
  (cd "$work/run-$1-$2" && GOGC=off GODEBUG=cpu.rdtscp=off MCPDIR_SHARED_DATA=$data valgrind --tool=cachegrind --cache-sim="$sim" \
    --cachegrind-out-file="$work/cg-$1-$2" "$work/search-$1.test" -test.run '^$' \
    -test.bench 'BenchmarkCountPass$' -test.benchtime "$2" >"$work/log-$1-$2" 2>&1) || return 0
  cg_annotate --auto=no --threshold=0 --show="$event" "$work/cg-$1-$2" | grep -v 'PROGRAM TOTALS' | awk '/^ *[0-9,]+ +\(/ {
    n = $1; gsub(",", "", n); sub(/^ *[0-9,]+ +\([ 0-9.]+%\) +/, ""); sub(/^[^:]*:/, ""); print n "\t" $0 }' > "$work/count-$1-$2"
}
for side in a b; do
  count $side 1x &
  count $side 2x &
  wait
done
for run in a-1x a-2x b-1x b-2x; do
  if [ ! -s "$work/count-$run" ]; then
    echo "bench/count.sh: the run $run under valgrind failed; its log ends:" >&2
    tail -20 "$work/log-$run" >&2
    exit 1
  fi
done
python3 - "$work" "$1" "$2" "${COUNT_TOP:-25}" "$event" <<'PY'
import os, sys
work, a, b, top, event = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
what = "instructions" if event == "Ir" else event
asks = 20000 if os.environ.get("COUNT_NEW") == "1" else sum(1 for _ in open(f"{work}/testdata-a/sampled-asks.jsonl"))
def counts(rev, n):
    d = {}
    for line in open(f"{work}/count-{rev}-{n}"):
        v, f = line.rstrip("\n").split("\t", 1)
        d[f] = d.get(f, 0) + int(v)
    return d
def passes(rev):  # two passes over the asks, per ask
    one, three = counts(rev, "1x"), counts(rev, "2x")
    return {f: (three[f] - one.get(f, 0)) / (2 * asks) for f in three}
pa, pb = passes("a"), passes("b")
# The runtime's own work (the collector, the scheduler, map lookups) differs
# from run to run with the timing of its goroutines: the code's is exact.
def code(p):
    return sum(v for f, v in p.items() if v > 0 and not f.startswith(("runtime.", "internal/runtime/", "gc")))
ta, tb = sum(v for v in pa.values() if v > 0), sum(v for v in pb.values() if v > 0)
ca, cb = code(pa), code(pb)
print(f"{what} a query, outside the runtime: {a} {ca/1e3:.1f}k, {b} {cb/1e3:.1f}k, B/A {cb/ca:.3f}")
print(f"with the runtime's: {a} {ta/1e3:.1f}k, {b} {tb/1e3:.1f}k, B/A {tb/ta:.3f}")
print(f"{'A':>9} {'B':>9} {'B/A':>6}  function ({what} a query)")
for f in sorted(set(pa) | set(pb), key=lambda f: -max(pa.get(f, 0), pb.get(f, 0)))[:top]:
    x, y = pa.get(f, 0), pb.get(f, 0)
    print(f"{x:9.0f} {y:9.0f} {y/x if x > 0 else float('inf'):6.3f}  {f[-100:]}")
PY
