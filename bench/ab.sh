#!/usr/bin/env bash
# bench/ab.sh REV_A REV_B: REST search (or MCP search_mcp) throughput and
# server CPU per request of two revisions, side by side in alternating wrk rounds (the 40 load queries of
# ../shared/data/relevance/dev.jsonl rotating, 64 connections, 5 s a round;
# AB_ROUNDS rounds, 6 by default, after one unmeasured).
# CPU per request, read from each server's /proc stat, holds up better than
# req/s on a shared, noisy machine.
# AB_NEW=1 asks only queries never asked before: 20,000 distinct ones (the
# judged queries of every set, and keywords of one to four corpus words),
# to servers that keep no results (--search-cache 0), so that every request
# is searched. AB_ASKS=1 asks the 4,480 sampled asks instead (sentences
# never asked before, as bench/run.sh's rest-asks load), of servers that
# keep no results. AB_COLD=1 asks the 40 load queries of servers that keep no
# results: every request searched, its words' analyses kept.
# AB_MCP=sessionless|session|2026 drives tools/call search_mcp in that
# protocol era instead (as bench/run.sh's mcp-ERA loads: 2025-06-18 without
# a session, 2025-11-25 in 16 sessions, 2026-07-28), with the same queries.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/ab.sh REV_A REV_B" >&2; exit 2; }
case ${AB_MCP:-} in '' | sessionless | session | 2026) ;; *) echo "bench/ab.sh: AB_MCP is sessionless, session or 2026" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.."
. bench/lib.sh
need_corpus bench/ab.sh
command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
for rev in "$1" "$2"; do
  git worktree add -q --detach "$work/src" "$rev"
  (cd "$work/src" && go build -o "$work/mcpdir-$rev" ./cmd/mcpdir)
  git worktree remove --force "$work/src"
done
# Each revision gets a store of its own, made by itself: an older one may not
# open a store whose schema a newer one moved on.
for rev in "$1" "$2"; do
  "$work/mcpdir-$rev" import --data-dir "$work/data-$rev" "$data/packages-corpus.jsonl" >/dev/null 2>&1
  "$work/mcpdir-$rev" keys create --data-dir "$work/data-$rev" --name ab --rate-limit unlimited | sed -n 1p >"$work/key-$rev"
done
seed=
[ "${AB_NEW:-}" = 1 ] && seed=25
if [ "${AB_ASKS:-}" = 1 ]; then write_asks "$work/q"; else write_queries "$data" "$work/q" $seed; fi
cache=()
[ "${AB_NEW:-}${AB_COLD:-}${AB_ASKS:-}" != "" ] && cache=(--search-cache 0)
# lua REV: the wrk script of the load, for the server of REV at $port.
lua() {
  local key headers body session=
  key=$(cat "$work/key-$1")
  if [ -z "${AB_MCP:-}" ]; then
    rest_lua "$work/q.txt" "$key"
    return
  fi
  body="'{\"jsonrpc\":\"2.0\",\"id\":' .. rid .. ',\"method\":\"tools/call\",\"params\":{\"name\":\"search_mcp\",\"arguments\":{\"keywords\":' .. q .. '}"
  case $AB_MCP in
    sessionless) headers='wrk.headers["Accept"] = "application/json"; wrk.headers["MCP-Protocol-Version"] = "2025-06-18"'; body+="}}'" ;;
    session) headers='wrk.headers["Accept"] = "application/json, text/event-stream"; wrk.headers["MCP-Protocol-Version"] = "2025-11-25"'
      body+="}}'"; session='wrk.headers["Mcp-Session-Id"] = sessions[i % #sessions + 1]'
      mcp_sessions "http://127.0.0.1:$port" "$key" > "$work/sessions-$1.txt" ;;
    2026) headers='wrk.headers["Accept"] = "application/json, text/event-stream"; wrk.headers["MCP-Protocol-Version"] = "2026-07-28"; wrk.headers["Mcp-Method"] = "tools/call"; wrk.headers["Mcp-Name"] = "search_mcp"'
      body+=",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}'" ;;
  esac
  cat <<LUA
local queries, sessions = {}, {}
for line in io.lines("$work/q.json.txt") do queries[#queries + 1] = line end
for line in io.lines("$work/sessions-$1.txt") do sessions[#sessions + 1] = line end
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local i = 0
wrk.headers["Authorization"] = "Bearer $key"
wrk.headers["Content-Type"] = "application/json"
$headers
request = function()
  i = i + 1
  local q, rid = queries[i % #queries + 1], tid * 1000000000 + i
  $session
  return wrk.format("POST", "/api/open/mcp", nil, $body)
end
LUA
}
ports=()
for rev in "$1" "$2"; do
  port=$(free_port)
  "$work/mcpdir-$rev" serve --data-dir "$work/data-$rev" --addr "127.0.0.1:$port" --no-starter "${cache[@]}" 2>"$work/$rev.log" &
  pids+=($!); ports+=("$port")
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
  touch "$work/sessions-$rev.txt"
  lua "$rev" > "$work/load-$rev.lua"
  wrk -t2 -c64 -d2s -s "$work/load-$rev.lua" "http://127.0.0.1:$port/" >/dev/null # warm up
done
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
round() { # pid port rev: "req/s µs-of-CPU-per-request"
  local c0 out c1
  c0=$(cpu "$1"); out=$(wrk -t2 -c64 -d5s -s "$work/load-$3.lua" "http://127.0.0.1:$2/"); c1=$(cpu "$1")
  echo "$out" | awk -v c="$((c1 - c0))" -v t="$ticks" '/requests in/ {n = $1} /Requests\/sec/ {r = $2} END {printf "%s %.1f\n", r, c * 1e6 / t / n}'
}
what=${AB_MCP:+MCP search_mcp, era $AB_MCP}
echo "${what:-REST search}, $1 (A) beside $2 (B), wrk -t2 -c64 -d5s a round, the first to go alternating${AB_NEW:+, queries never asked before}${AB_ASKS:+, sentences never asked before}${AB_COLD:+, no results kept}"
round "${pids[0]}" "${ports[0]}" "$1" >/dev/null # a round unmeasured: the first server to go was read slow
round "${pids[1]}" "${ports[1]}" "$2" >/dev/null
for r in $(seq "${AB_ROUNDS:-6}"); do
  if [ $((r % 2)) = 1 ]; then
    read -r ra ca <<<"$(round "${pids[0]}" "${ports[0]}" "$1")"
    read -r rb cb <<<"$(round "${pids[1]}" "${ports[1]}" "$2")"
  else
    read -r rb cb <<<"$(round "${pids[1]}" "${ports[1]}" "$2")"
    read -r ra ca <<<"$(round "${pids[0]}" "${ports[0]}" "$1")"
  fi
  python3 -c "print(f'round $r: A $ra req/s, $ca µs CPU a request; B $rb req/s, $cb µs; B/A throughput {$rb/$ra:.3f}, CPU a request {$cb/$ca:.3f}')"
done
