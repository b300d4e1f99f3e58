#!/usr/bin/env bash
# make bench: search quality and speed figures for docs/BENCHMARKS.md.
#  1. in-process: index build, heap, query latency per kind (go test -bench in search/)
#  2. HTTP: REST search throughput under wrk from a separate process, beside the
#     same server's throughput for a precomputed body of equal size, in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
data=${MCPDIR_SHARED_DATA:-$root/../shared/data}
if [ ! -f "$data/packages-corpus.jsonl" ]; then
  echo "bench: $data/packages-corpus.jsonl not found: the benchmarks need the shared data set; skipped"
  exit 0
fi
duration=${BENCH_DURATION:-5s}
echo "# mcpdir benchmarks — $(date -u +%Y-%m-%dT%H:%MZ) — $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3)"

if [ "${BENCH_HTTP_ONLY:-}" != 1 ]; then
echo; echo "## In-process (go test -bench)"
bench() { MCPDIR_SHARED_DATA=$data go test -run '^$' -timeout 30m "$@" 2>&1 | grep -v '^goos\|^goarch\|^pkg\|^cpu\|^PASS\|^ok' || true; }
echo "### corpus (1x): index build and memory; query latency per kind"
bench -bench 'BenchmarkBuild$' -benchtime 5x ./search/
bench -bench 'BenchmarkSearch$' -benchtime 40000x ./search/
for scale in ${BENCH_SCALES:-10 100}; do
  echo "### ${scale}x the corpus (synthetic variants of real entries)"
  MCPDIR_BENCH_SCALE=$scale bench -bench 'BenchmarkBuild$' -benchtime 1x ./search/
  MCPDIR_BENCH_SCALE=$scale bench -bench 'BenchmarkSearch$' -benchtime 2000x ./search/
done
echo "### ours beside Bleve v2.6.1 on the same corpus and queries"
bench -bench 'BenchmarkCompare' -benchtime 800x ./search/blevebench/
fi

echo; echo "## HTTP under load (wrk -t2 -c64 -d$duration a measurement, same server, one run)"
if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)"; apt-get install -y -qq wrk >/dev/null
fi
work=$(mktemp -d)
server=""
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdir" ./cmd/mcpdir
start=$(date +%s.%N)
"$work/mcpdir" import --data-dir "$work/data" "$data/packages-corpus.jsonl" | sed -n 1p
echo "import took $(echo "$(date +%s.%N) - $start" | bc) s"
key=$("$work/mcpdir" keys create --data-dir "$work/data" --name bench --rate-limit unlimited | sed -n 1p)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
ready() { for _ in $(seq 300); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && return 0; sleep 0.1; done; return 1; }
# Memory per entry: the same server on an empty store, then on the corpus.
"$work/mcpdir" serve --data-dir "$work/empty" --addr "127.0.0.1:$port" --no-starter --log-level warn &
server=$!; ready; sleep 1; empty_rss=$(rss_kib $server); kill $server; wait $server 2>/dev/null || true
"$work/mcpdir" serve --data-dir "$work/data" --addr "127.0.0.1:$port" --no-starter --bench-baseline --log-level warn &
server=$!
ready; sleep 1
entries=$(wc -l < "$data/packages-corpus.jsonl")
full_rss=$(rss_kib $server)
echo "server RSS: $((empty_rss / 1024)) MiB empty, $((full_rss / 1024)) MiB with $entries entries: $(( (full_rss - empty_rss) * 1024 / entries )) bytes per entry (store cache, index and entries)"

# The 40 judged queries, URL-encoded, for wrk to cycle through.
python3 - "$data/relevance/dev.jsonl" "$work" <<'PY'
import json, sys, urllib.parse
qs = [json.loads(line)["query"] for line in open(sys.argv[1])]
open(sys.argv[2] + "/queries.txt", "w").write("".join(urllib.parse.quote_plus(q) + "\n" for q in qs))
open(sys.argv[2] + "/queries.json.txt", "w").write("".join(json.dumps(q) + "\n" for q in qs))
PY
total=0; n=0
while read -r q; do
  size=$(curl -fs -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/open/v1/search?keywords=$q" | wc -c)
  total=$((total + size)); n=$((n + 1))
done < "$work/queries.txt"
avg=$((total / n))
echo "mean search response: $avg bytes over $n queries"
# The same searches through MCP: the whole answer, and the text a model reads.
mcp_total=0; text_total=0
while read -r q; do
  answer=$(curl -fs -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    "http://127.0.0.1:$port/api/open/mcp" -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":'"$q"'}}}')
  mcp_total=$((mcp_total + ${#answer}))
  text_total=$((text_total + $(printf '%s' "$answer" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["result"]["content"][0]["text"].encode()))')))
done < "$work/queries.json.txt"
echo "mean search_mcp answer: $((mcp_total / n)) bytes, of which the text a model reads: $((text_total / n)) bytes"

cat > "$work/search.lua" <<LUA
local queries = {}
for line in io.lines("$work/queries.txt") do queries[#queries + 1] = line end
local i = 0
wrk.headers["Authorization"] = "Bearer $key"
request = function()
  i = i % #queries + 1
  return wrk.format("GET", "/api/open/v1/search?keywords=" .. queries[i])
end
LUA
cat > "$work/mcp.lua" <<LUA
local queries = {}
for line in io.lines("$work/queries.json.txt") do queries[#queries + 1] = line end
local i = 0
wrk.headers["Authorization"] = "Bearer $key"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
request = function()
  i = i % #queries + 1
  return wrk.format("POST", "/api/open/mcp", nil,
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":' .. queries[i] .. '}}}')
end
LUA
rps() { wrk -t2 -c64 -d"$duration" -H "Authorization: Bearer $key" "$@" | awk '/Requests\/sec/ {print $2}'; }
# Alternate the two loads over several rounds: the machine is shared and
# noisy, and a ratio of neighbouring measurements is what holds still.
ratios=(); mcp_ratios=()
for round in $(seq "${BENCH_ROUNDS:-3}"); do
  base=$(rps "http://127.0.0.1:$port/debug/baseline?bytes=$avg")
  rest=$(rps -s "$work/search.lua" "http://127.0.0.1:$port/")
  mcp=$(rps -s "$work/mcp.lua" "http://127.0.0.1:$port/")
  ratios+=("$(echo "scale=3; $rest / $base" | bc)")
  mcp_ratios+=("$(echo "scale=3; $mcp / $rest" | bc)")
  echo "round $round: precomputed body of $avg bytes $base req/s; REST search (40 queries in turn) $rest req/s; MCP search_mcp tools/call (same queries, stateless POST) $mcp req/s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "REST / precomputed body, median of ${#ratios[@]} rounds: $(median "${ratios[@]}")"
echo "MCP search_mcp / REST, median of ${#mcp_ratios[@]} rounds: $(median "${mcp_ratios[@]}")"
echo "server RSS after load: $(( $(awk '/VmRSS/ {print $2}' /proc/$server/status) / 1024 )) MiB"
