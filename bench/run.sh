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

echo; echo "## In-process (go test -bench)"
MCPDIR_SHARED_DATA=$data go test -run '^$' -bench . -benchtime 1x ./search/ 2>&1 | grep -v '^goos\|^goarch\|^pkg\|^cpu' || true

echo; echo "## HTTP under load (wrk -t2 -c64 -d$duration a measurement, same server, one run)"
if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)"; apt-get install -y -qq wrk >/dev/null
fi
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdir" ./cmd/mcpdir
start=$(date +%s.%N)
"$work/mcpdir" import --data-dir "$work/data" "$data/packages-corpus.jsonl" | head -n1
echo "import took $(echo "$(date +%s.%N) - $start" | bc) s"
key=$("$work/mcpdir" keys create --data-dir "$work/data" --name bench --rate-limit unlimited | head -n1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/mcpdir" serve --data-dir "$work/data" --addr "127.0.0.1:$port" --no-starter --bench-baseline --log-level warn &
server=$!
for _ in $(seq 200); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
echo "server RSS after start: $(( $(awk '/VmRSS/ {print $2}' /proc/$server/status) / 1024 )) MiB"

# The 40 judged queries, URL-encoded, for wrk to cycle through.
python3 - "$data/relevance/dev.jsonl" > "$work/queries.txt" <<'PY'
import json, sys, urllib.parse
for line in open(sys.argv[1]):
    print(urllib.parse.quote_plus(json.loads(line)["query"]))
PY
total=0; n=0
while read -r q; do
  size=$(curl -fs -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/open/v1/search?keywords=$q" | wc -c)
  total=$((total + size)); n=$((n + 1))
done < "$work/queries.txt"
avg=$((total / n))
echo "mean search response: $avg bytes over $n queries"

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
rps() { wrk -t2 -c64 -d"$duration" -H "Authorization: Bearer $key" "$@" | awk '/Requests\/sec/ {print $2}'; }
# Alternate the two loads over several rounds: the machine is shared and
# noisy, and a ratio of neighbouring measurements is what holds still.
ratios=()
for round in $(seq "${BENCH_ROUNDS:-3}"); do
  base=$(rps "http://127.0.0.1:$port/debug/baseline?bytes=$avg")
  rest=$(rps -s "$work/search.lua" "http://127.0.0.1:$port/")
  ratio=$(echo "scale=3; $rest / $base" | bc)
  ratios+=("$ratio")
  echo "round $round: precomputed body of $avg bytes $base req/s, REST search (40 queries in turn) $rest req/s, ratio $ratio"
done
echo "REST / precomputed, median of ${#ratios[@]} rounds: $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
echo "server RSS after load: $(( $(awk '/VmRSS/ {print $2}' /proc/$server/status) / 1024 )) MiB"
