#!/usr/bin/env bash
# make bench: search quality and speed figures for docs/BENCHMARKS.md.
#  1. in-process: index build, heap, query latency per kind (go test -bench in search/)
#  2. HTTP: REST search throughput under wrk from a separate process, beside the
#     same server's throughput for a precomputed body of equal size, in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
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

echo; echo "## In-process latency per search and cost per MCP call (go test -bench)"
if [ "${BENCH_HTTP_ONLY:-}" = 1 ]; then # else above
  MCPDIR_SHARED_DATA=$data go test -run '^$' -bench 'BenchmarkSearch$' -benchtime 40000x ./search/ 2>&1 | grep -v '^goos\|^goarch\|^pkg\|^cpu\|^PASS\|^ok' || true
fi
go test -run '^$' -bench 'BenchmarkToolsCall' -benchtime 2000x ./mcp/ 2>&1 | grep '^Benchmark' || true

echo; echo "## HTTP under load (wrk -t2 -c64 -d$duration a measurement, one server with its defaults: access log, metrics, request ids, deadlines)"
if ! command -v wrk >/dev/null; then
  echo "installing wrk (Debian package)"; apt-get install -y -qq wrk >/dev/null
fi
work=$(mktemp -d)
server=""
cold=""
trap 'kill $server $cold 2>/dev/null || true; rm -rf "$work"' EXIT
go build -o "$work/mcpdir" ./cmd/mcpdir
start=$(date +%s.%N)
"$work/mcpdir" import --data-dir "$work/data" "$data/packages-corpus.jsonl" 2>/dev/null | sed -n 1p
echo "import took $(echo "$(date +%s.%N) - $start" | bc) s"
key=$("$work/mcpdir" keys create --data-dir "$work/data" --name bench --rate-limit unlimited | sed -n 1p)
port=$(free_port)
url=http://127.0.0.1:$port
rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
ready() { for _ in $(seq 300); do curl -fs "$url/readyz" >/dev/null && return 0; sleep 0.1; done; return 1; }
# Memory per entry: the same server on an empty store, then on the corpus.
"$work/mcpdir" serve --data-dir "$work/empty" --addr "127.0.0.1:$port" --no-starter --log-level warn 2>/dev/null &
server=$!; ready; sleep 1; empty_rss=$(rss_kib $server); kill $server; wait $server 2>/dev/null || true
# The defaults: info-level JSON access log (to a file, as a service's log
# goes), metrics, request ids, deadlines; plus the baseline route.
"$work/mcpdir" serve --data-dir "$work/data" --addr "127.0.0.1:$port" --no-starter --bench-baseline 2>"$work/server.log" &
server=$!
ready; sleep 1
# The same server without its caches of results and answers
# (--search-cache 0), on the same store: what a query not asked before
# costs, for the loads marked /cold.
cold_port=$(free_port)
cold_url=http://127.0.0.1:$cold_port
"$work/mcpdir" serve --data-dir "$work/data" --addr "127.0.0.1:$cold_port" --no-starter --bench-baseline --search-cache 0 2>"$work/cold.log" &
cold=$!
url=$cold_url ready
entries=$(wc -l < "$data/packages-corpus.jsonl")
full_rss=$(rss_kib $server)
echo "server RSS: $((empty_rss / 1024)) MiB empty, $((full_rss / 1024)) MiB with $entries entries: $(( (full_rss - empty_rss) * 1024 / entries )) bytes per entry (store cache, index and entries)"

# The 40 judged queries, URL-encoded and as JSON strings, for wrk to cycle through.
write_queries "$data" "$work/queries"
# Queries never asked before (issue 36), as bench/ab.sh's AB_NEW: the judged
# queries of every set, then keywords of one to four corpus words, 20,000
# distinct ones; wrk asks each at most once a round or so.
write_queries "$data" "$work/queries-new" 36
total=0; n=0
while read -r q; do
  size=$(curl -fs -H "Authorization: Bearer $key" "$url/api/open/v1/search?keywords=$q" | wc -c)
  total=$((total + size)); n=$((n + 1))
done < "$work/queries.txt"
avg=$((total / n))
echo "mean search response: $avg bytes over $n queries"
# The size of each new query's answer, for the limit that answers each
# query with a body of its answer's size (limit-each).
response_sizes "$cold_url" "$key" "$work/queries-new.txt" > "$work/queries-new.sizes"
avg_new=$(awk '{s += $1} END {printf "%d", s / NR}' "$work/queries-new.sizes")
echo "mean search response to new queries: $avg_new bytes over all $(wc -l < "$work/queries-new.sizes") of them"
# Sentences never asked before: the stream above is mostly keywords, and a
# sentence costs a search several times a keyword's.
write_asks "$work/asks-new"
response_sizes "$cold_url" "$key" "$work/asks-new.txt" > "$work/asks-new.sizes"
echo "mean search response to new sentences: $(awk '{s += $1} END {printf "%d", s / NR}' "$work/asks-new.sizes") bytes over all $(wc -l < "$work/asks-new.sizes") of them"
# The same searches through MCP: the whole answer, and the text a model reads.
mcp_total=0; text_total=0; n=0
while read -r q; do
  answer=$(curl -fs -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -H 'Accept: application/json' \
    "$url/api/open/mcp" -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":'"$q"'}}}')
  mcp_total=$((mcp_total + $(printf '%s' "$answer" | wc -c))); n=$((n + 1))
  text_total=$((text_total + $(printf '%s' "$answer" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["result"]["content"][0]["text"].encode()))')))
done < "$work/queries.json.txt"
echo "mean search_mcp answer: $((mcp_total / n)) bytes, of which the text a model reads: $((text_total / n)) bytes"
# Ids for get_mcp_detail: the top hit of each query.
while read -r q; do
  curl -fs -H "Authorization: Bearer $key" "$url/api/open/v1/search?keywords=$q" | python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(d[0]["id"]) if d else None'
done < "$work/queries.txt" > "$work/ids.txt"

# Streamable HTTP sessions, as desktop clients keep one open: the 16 a
# key may hold, the requests spread over them.
mcp_sessions "$url" "$key" > "$work/sessions.txt"

# wrk scripts: REST; MCP search_mcp sessionless (JSON), in the session and
# in 2026-07-28 (both accepting JSON and event streams, as clients do);
# tools/list and get_mcp_detail in 2026-07-28. Ids are unique per thread
# (a session refuses two calls in flight with one id).
lua() { # name, headers (lua statements), body expression, statements per request
  cat > "$work/$1.lua" <<LUA
local queries, ids, sessions = {}, {}, {}
for line in io.lines("$work/queries.json.txt") do queries[#queries + 1] = line end
for line in io.lines("$work/ids.txt") do ids[#ids + 1] = line end
for line in io.lines("$work/sessions.txt") do sessions[#sessions + 1] = line end
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local i = 0
wrk.headers["Authorization"] = "Bearer $key"
wrk.headers["Content-Type"] = "application/json"
$2
request = function()
  i = i + 1
  local q, id, rid = queries[i % #queries + 1], ids[i % #ids + 1], tid * 1000000000 + i
  ${4:-}
  return wrk.format("POST", "/api/open/mcp", nil, $3)
end
LUA
}
rest_lua "$work/queries.txt" "$key" > "$work/rest.lua"
rest_lua "$work/queries-new.txt" "$key" > "$work/rest-new.lua"
each_lua "$work/queries-new.txt" "$work/queries-new.sizes" "$key" > "$work/limit-each.lua"
rest_lua "$work/asks-new.txt" "$key" > "$work/rest-asks.lua"
each_lua "$work/asks-new.txt" "$work/asks-new.sizes" "$key" > "$work/limit-asks.lua"
both='wrk.headers["Accept"] = "application/json, text/event-stream"'
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
modern="$both; wrk.headers[\"MCP-Protocol-Version\"] = \"2026-07-28\"; wrk.headers[\"Mcp-Method\"] = \"tools/call\""
search_body="'{\"jsonrpc\":\"2.0\",\"id\":' .. rid .. ',\"method\":\"tools/call\",\"params\":{\"name\":\"search_mcp\",\"arguments\":{\"keywords\":' .. q .. '}"
lua mcp-sessionless 'wrk.headers["Accept"] = "application/json"; wrk.headers["MCP-Protocol-Version"] = "2025-06-18"' "$search_body}}'"
lua mcp-session "$both; wrk.headers[\"MCP-Protocol-Version\"] = \"2025-11-25\"" "$search_body}}'" 'wrk.headers["Mcp-Session-Id"] = sessions[i % #sessions + 1]'
lua mcp-2026 "$modern; wrk.headers[\"Mcp-Name\"] = \"search_mcp\"" "$search_body,$meta}}'"
sed "s#$work/queries.json.txt#$work/queries-new.json.txt#" "$work/mcp-2026.lua" > "$work/mcp-2026-new.lua"
lua list-2026 "$both; wrk.headers[\"MCP-Protocol-Version\"] = \"2026-07-28\"; wrk.headers[\"Mcp-Method\"] = \"tools/list\"" "'{\"jsonrpc\":\"2.0\",\"id\":' .. rid .. ',\"method\":\"tools/list\",\"params\":{$meta}}'"
lua detail-2026 "$modern; wrk.headers[\"Mcp-Name\"] = \"get_mcp_detail\"" "'{\"jsonrpc\":\"2.0\",\"id\":' .. rid .. ',\"method\":\"tools/call\",\"params\":{\"name\":\"get_mcp_detail\",\"arguments\":{\"mcp_id\":\"' .. id .. '\"},$meta}}'"

# One load: wrk's requests a second, and the server's CPU time and
# allocations per request (from /proc and its own /metrics).
metric() { curl -fs "$url/metrics" | awk -v m="$1" '$1 == m {printf "%.0f", $2}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
load() { # name, wrk arguments...; prints "rps cpu_us allocs bytes" and keeps wrk's output
  local name=$1; shift
  local c0 m0 b0 out
  c0=$(cpu_ticks); m0=$(metric go_memstats_mallocs_total); b0=$(metric go_memstats_alloc_bytes_total)
  out=$(wrk -t2 -c64 -d"$duration" "$@")
  local c1 m1 b1 reqs rps non2xx
  c1=$(cpu_ticks); m1=$(metric go_memstats_mallocs_total); b1=$(metric go_memstats_alloc_bytes_total)
  reqs=$(echo "$out" | awk '/requests in/ {print $1}'); rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $4}')
  [ -n "$non2xx" ] && echo "WARNING: $name answered $non2xx non-2xx responses" >&2
  awk -v r="$rps" -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v n="$reqs" -v m=$((m1 - m0)) -v b=$((b1 - b0)) \
    'BEGIN {printf "%.0f %.1f %.0f %.0f\n", r, c / t * 1e6 / n, m / n, b / n}'
}
# REST is measured again before each MCP era (rest/ERA), so that each era's
# ratio is to the REST load right before it.
names=(limit limit+middleware rest mcp-sessionless rest/session mcp-session rest/2026 mcp-2026 list-2026 detail-2026 limit/cold rest/cold mcp-2026/cold limit-new/cold limit-each/cold rest-new/cold mcp-2026-new/cold limit-asks/cold rest-asks/cold)
rest_before() { case $1 in mcp-session) echo rest/session ;; mcp-2026) echo rest/2026 ;; *) echo rest ;; esac; }
declare -A rps cpu allocs bytes
for round in $(seq "${BENCH_ROUNDS:-3}"); do
  line="round $round:"
  for name in "${names[@]}"; do
    case $name in
      limit) r=$(load "$name" "$url/debug/baseline?bytes=$avg") ;;
      limit+middleware) r=$(load "$name" "$url/debug/baseline?bytes=$avg&observed=1") ;;
      */cold) base=${name%/cold}
        case $base in
          limit) args=("$cold_url/debug/baseline?bytes=$avg") ;;
          limit-new) args=("$cold_url/debug/baseline?bytes=$avg_new") ;;
          *) args=(-s "$work/$base.lua" "$cold_url/") ;;
        esac
        r=$(server=$cold url=$cold_url load "$name" "${args[@]}") ;;
      rest/*) r=$(load "$name" -s "$work/rest.lua" "$url/") ;;
      *) r=$(load "$name" -s "$work/$name.lua" "$url/") ;;
    esac
    read -r a b c d <<< "$r"
    rps[$name]+="$a "; cpu[$name]+="$b "; allocs[$name]+="$c "; bytes[$name]+="$d "
    line+=" $name $a/s;"
  done
  echo "$line"
done
median() { printf '%s\n' $@ | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Ratios of neighbouring measurements, round by round, then their median.
ratio() { # numerator denominator
  local -a num=(${rps[$1]}) den=(${rps[$2]}) out=()
  for i in "${!num[@]}"; do out+=("$(echo "scale=3; ${num[$i]} / ${den[$i]}" | bc)"); done
  median "${out[@]}"
}
echo
printf '%-18s %10s %12s %14s %12s\n' load "req/s" "server CPU" "allocs" "bytes alloc"
for name in "${names[@]}"; do
  printf '%-18s %10s %10sµs %14s %12s\n' "$name" "$(median ${rps[$name]})" "$(median ${cpu[$name]})" "$(median ${allocs[$name]})" "$(median ${bytes[$name]})"
done
echo "(medians over the rounds; server CPU, allocations and bytes allocated per request, from /proc and the server's /metrics)"
echo
echo "REST search / equal-body limit (plain handler): $(ratio rest limit)   (the goal: >= 0.60)"
echo "REST search / the same body through the middleware: $(ratio rest limit+middleware)"
for era in mcp-sessionless mcp-session mcp-2026; do
  echo "MCP search_mcp $era / REST search right before it: $(ratio $era "$(rest_before $era)")   (the goal: >= 0.80)"
done
echo "(medians of the ratios of neighbouring measurements over ${BENCH_ROUNDS:-3} rounds)"
echo "without the caches of results and answers (--search-cache 0; every search searched): REST / limit $(ratio rest/cold limit/cold), MCP 2026-07-28 / REST $(ratio mcp-2026/cold rest/cold)"
echo "queries never asked before (20,000 distinct; --search-cache 0): REST / equal-body limit $(ratio rest-new/cold limit-each/cold)   (the goal: >= 0.50; each query answered a body of its answer's size, asked by the same client), $(ratio rest-new/cold limit-new/cold) beside one body of the mean size asked without a script; MCP 2026-07-28 / REST $(ratio mcp-2026-new/cold rest-new/cold)   (the goal: >= 0.80)"
echo "sentences never asked before (the 4,480 sampled asks; --search-cache 0): REST / equal-body limit $(ratio rest-asks/cold limit-asks/cold)   (each answered a body of its answer's size, asked by the same client)"
# Server CPU per request, less swayed by other work on the machine than
# requests a second: the same ratios as costs (1 / cost, relative).
cost_ratio() { awk -v a="$(median ${cpu[$2]})" -v b="$(median ${cpu[$1]})" 'BEGIN {printf "%.3f", a / b}'; }
echo "the same as server CPU per request: REST / limit $(cost_ratio rest limit), REST / limit through the middleware $(cost_ratio rest limit+middleware); MCP / REST: sessionless $(cost_ratio mcp-sessionless rest), session $(cost_ratio mcp-session rest/session), 2026-07-28 $(cost_ratio mcp-2026 rest/2026)"

# Memory under a long load: every door in turn for 60 s; the heap in use
# and the goroutines sampled every 10 s must not grow.
echo
echo "## Memory under ${BENCH_SOAK:-60} s of load (REST and each MCP era in turn)"
soak=${BENCH_SOAK:-60}
samples=()
# The heap's goal is twice what was live after the last collection: the
# live heap, sampled without forcing a collection.
live() { echo $(( $(metric go_memstats_next_gc_bytes) / 2 )); }
heap() { echo "$(( $(live) / 1048576 )) MiB live heap, $(( $(rss_kib $server) / 1024 )) MiB RSS, $(metric go_goroutines) goroutines"; }
echo "before: $(heap)"
end=$(( $(date +%s) + soak )); i=0; scripts=(rest mcp-sessionless mcp-session mcp-2026 list-2026 detail-2026)
while [ "$(date +%s)" -lt "$end" ]; do
  wrk -t2 -c64 -d10s -s "$work/${scripts[$((i % ${#scripts[@]}))]}.lua" "$url/" >/dev/null
  i=$((i + 1))
  samples+=("$(live)")
  echo "after $((i * 10)) s: $(heap)"
done
if [ "${#samples[@]}" -lt 2 ]; then
  echo "one sample: too short a soak to compare its halves (BENCH_SOAK=60 or more)"
else
  first_half=$(printf '%s\n' "${samples[@]:0:$(( ${#samples[@]} / 2 ))}" | sort -g | tail -1)
  second_half=$(printf '%s\n' "${samples[@]:$(( ${#samples[@]} / 2 ))}" | sort -g | tail -1)
  echo "peak live heap, first half $((first_half / 1048576)) MiB, second half $((second_half / 1048576)) MiB: $(awk -v a="$first_half" -v b="$second_half" 'BEGIN {print (b <= a * 1.10) ? "no growth" : "GREW"}')"
fi
lines=$(grep -c '"msg":"request"' "$work/server.log" || true)
echo "access log: $lines lines written"
