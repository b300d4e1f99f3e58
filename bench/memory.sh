#!/usr/bin/env bash
# bench/memory.sh [SCALE] [BINARY]: the memory of a real replica holding
# SCALE times the packages corpus (default 10): synthetic variants of its
# records (another name prefix or suffix, the brief's words shuffled, the
# package page of the new name, as search's BenchmarkSearch makes them),
# imported into a fresh embedded store, then served. Prints the peak
# resident set, the live heap once the index is built, and the heap
# profile's top. BINARY (default: this tree, built with -tags pprof) lets
# two builds be measured on the same store, one after the other. With
# MEMORY_SERVE=1 it then serves 12,000 never-asked REST searches on six
# connections and pages the registry list (its first 300 pages), printing
# the memory after each; GOMEMLIMIT=1740MiB is the ceiling memlimit sets
# in a container of 2 GiB (set by the operator, it keeps no headroom over
# the live heap below it: without it, serve does).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
need_corpus bench/memory.sh
scale=${1:-10}
work=${MEMORY_WORK:-$(mktemp -d)}
bin=${2:-$work/mcpdir}
[ -n "${2:-}" ] || go build -tags pprof -o "$bin" ./cmd/mcpdir
if [ ! -d "$work/data-$scale" ]; then
  python3 - "$data/packages-corpus.jsonl" "$scale" > "$work/corpus-$scale.jsonl" <<'PY'
import json, random, sys
rng = random.Random(1)
aff = ["pro", "lite", "plus", "next", "cloud", "local", "fast", "secure", "open", "community",
       "enterprise", "core", "hub", "kit", "bridge", "studio", "agent", "ai", "v2", "x"]
src = [json.loads(line) for line in open(sys.argv[1])]
for k in range(int(sys.argv[2])):
    for e in src:
        v = dict(e)
        if k:
            a = rng.choice(aff)
            v["name"] = f"{a}-{e['name']}-{k}" if rng.random() < 0.5 else f"{e['name']}-{a}-{k}"
            words = (e.get("brief") or "").split()
            rng.shuffle(words)
            v["brief"] = " ".join(words)
            if e.get("registry") == "pypi":
                v["website_url"] = "https://pypi.org/project/" + v["name"].replace("@", "").replace("/", "-") + "/"
            else:
                v["website_url"] = "https://www.npmjs.com/package/" + v["name"]
        print(json.dumps(v))
PY
  "$bin" import --data-dir "$work/data-$scale" "$work/corpus-$scale.jsonl" 2>/dev/null | tail -n1
fi
[ "${MEMORY_SERVE:-}" != 1 ] || key=$("$bin" keys create --data-dir "$work/data-$scale" --name memory --rate-limit unlimited 2>/dev/null | sed -n 1p)
port=$(free_port)
pport=$(free_port)
MCPDIR_PPROF_ADDR=127.0.0.1:$pport "$bin" serve --data-dir "$work/data-$scale" --addr "127.0.0.1:$port" --no-starter 2>"$work/server.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1200); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.5; done
sleep 2
grep -o '"msg":"index built"[^}]*' "$work/server.log" || true
grep -E 'VmHWM|VmRSS' "/proc/$server/status"
curl -fs "http://127.0.0.1:$pport/debug/pprof/heap?gc=1" > "$work/heap-$scale.prof"
curl -fs "http://127.0.0.1:$pport/debug/pprof/heap?debug=1" | grep -E '^# (HeapAlloc|HeapInuse) '
go tool pprof -sample_index=inuse_space -top -nodecount=12 "$bin" "$work/heap-$scale.prof" 2>/dev/null | sed -n '5,19p'
if [ "${MEMORY_SERVE:-}" = 1 ]; then
  memory() { echo "== $1"; grep -E 'VmHWM|VmRSS' "/proc/$server/status"; }
  write_queries "$data" "$work/queries" 7
  python3 - "$port" "$key" "$work/queries.txt" <<'PY'
import sys, threading, time, urllib.request
port, key, path = sys.argv[1:4]
qs = [line.strip() for line in open(path)][:12000]
failed = []
def ask(part):
    for q in part:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/open/v1/search?keywords={q}",
                                     headers={"Authorization": "Bearer " + key})
        try:
            urllib.request.urlopen(req, timeout=60).read()
        except Exception as e:
            failed.append(e)
start = time.time()
threads = [threading.Thread(target=ask, args=(qs[i::6],)) for i in range(6)]
for t in threads: t.start()
for t in threads: t.join()
print(f"{len(qs)} new searches in {time.time() - start:.0f} s, {len(failed)} failed")
PY
  memory "after the searches"
  python3 - "$port" <<'PY'
import json, sys, time, urllib.parse, urllib.request
port, cursor, pages = sys.argv[1], "", 0
while pages < 300:
    start = time.time()
    page = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v0.1/servers?limit=100"
                                            + (f"&cursor={urllib.parse.quote(cursor)}" if cursor else ""), timeout=900))
    if pages == 0:
        print(f"the registry list's first page in {time.time() - start:.1f} s")
    pages += 1
    cursor = (page.get("metadata") or {}).get("nextCursor") or ""
    if not cursor:
        break
print(f"{pages} pages")
PY
  memory "after paging the registry list"
fi
echo "bench/memory.sh: store, corpus and profile in $work"
