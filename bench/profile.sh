#!/usr/bin/env bash
# bench/profile.sh LOAD [SECONDS]: a CPU profile of the real server (built with
# -tags pprof) while wrk drives one load at 64 connections: rest (REST search),
# mcp (tools/call search_mcp in 2026-07-28), mcp-session (the same in
# 2025-11-25, in 16 sessions) or limit (the equal-body baseline
# through the middleware). The 40 dev queries rotate, as in bench/run.sh.
# Prints wrk's req/s and pprof's top functions; leaves the profile and binary
# in bench/profiles/ for `go tool pprof`.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/profile.sh rest|mcp|mcp-session|limit|rest-new|mcp-new|rest-asks [seconds]" >&2; exit 2; }
cd "$(dirname "$0")/.."
. bench/lib.sh
root=$(pwd)
need_corpus bench/profile.sh
command -v wrk >/dev/null || apt-get install -y -qq wrk >/dev/null
load=$1 seconds=${2:-10}
out=$root/bench/profiles; mkdir -p "$out"
work=$(mktemp -d)
server=""
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
go build -tags pprof -o "$out/mcpdir" ./cmd/mcpdir
"$out/mcpdir" import --data-dir "$work/data" "$data/packages-corpus.jsonl" >/dev/null 2>&1
key=$("$out/mcpdir" keys create --data-dir "$work/data" --name profile --rate-limit unlimited | sed -n 1p)
port=$(free_port)
pport=$(free_port)
url=http://127.0.0.1:$port
cache=()
case $load in *-new|*-asks) cache=(--search-cache 0) ;; esac
MCPDIR_PPROF_ADDR=127.0.0.1:$pport "$out/mcpdir" serve --data-dir "$work/data" --addr "127.0.0.1:$port" --no-starter --bench-baseline "${cache[@]}" 2>"$work/server.log" &
server=$!
for _ in $(seq 300); do curl -fs "$url/readyz" >/dev/null && break; sleep 0.1; done
seed=
case $load in *-new) seed=36 ;; esac # as bench/run.sh's queries-new
if [ "$load" = rest-asks ]; then write_asks "$work/q"; else write_queries "$data" "$work/q" $seed; fi
case $load in
  rest|rest-new|rest-asks) file=q.txt; headers=''; req='wrk.format("GET", "/api/open/v1/search?keywords=" .. q)' ;;
  mcp|mcp-new) file=q.json.txt
    headers='wrk.headers["Content-Type"] = "application/json"; wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"; wrk.headers["Mcp-Method"] = "tools/call"; wrk.headers["Mcp-Name"] = "search_mcp"'
    req="wrk.format(\"POST\", \"/api/open/mcp\", nil, '{\"jsonrpc\":\"2.0\",\"id\":' .. i .. ',\"method\":\"tools/call\",\"params\":{\"name\":\"search_mcp\",\"arguments\":{\"keywords\":' .. q .. '},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}')" ;;
  mcp-session) file=q.json.txt # 2025-11-25 in the 16 sessions a key may hold, as bench/run.sh's mcp-session
    mcp_sessions "$url" "$key" > "$work/sessions.txt"
    headers="wrk.headers[\"Content-Type\"] = \"application/json\"; wrk.headers[\"Accept\"] = \"application/json, text/event-stream\"
wrk.headers[\"MCP-Protocol-Version\"] = \"2025-11-25\"
local sessions = {}
for line in io.lines(\"$work/sessions.txt\") do sessions[#sessions + 1] = line end
local threads = 0
function setup(thread) threads = threads + 1; thread:set(\"tid\", threads) end"
    req="(function() wrk.headers[\"Mcp-Session-Id\"] = sessions[i % #sessions + 1]; return wrk.format(\"POST\", \"/api/open/mcp\", nil, '{\"jsonrpc\":\"2.0\",\"id\":' .. (tid * 1000000000 + i) .. ',\"method\":\"tools/call\",\"params\":{\"name\":\"search_mcp\",\"arguments\":{\"keywords\":' .. q .. '}}}') end)()" ;;
  limit) file=q.txt; headers=''; req='wrk.format("GET", "/debug/baseline?bytes=13371&observed=1")' ;;
  *) echo "bench/profile.sh: unknown load $load" >&2; exit 2 ;;
esac
cat > "$work/load.lua" <<LUA
local queries = {}
for line in io.lines("$work/$file") do queries[#queries + 1] = line end
local i = 0
wrk.headers["Authorization"] = "Bearer $key"
$headers
request = function()
  i = i + 1
  local q = queries[i % #queries + 1]
  return $req
end
LUA
wrk -t2 -c64 -d2s -s "$work/load.lua" "$url/" >/dev/null # warm up
wrk -t2 -c64 -d"$((seconds + 2))s" -s "$work/load.lua" "$url/" > "$work/wrk.txt" &
wrk=$!
sleep 1
curl -fs "http://127.0.0.1:$pport/debug/pprof/profile?seconds=$seconds" > "$out/$load.pprof"
wait $wrk
grep -E 'Requests/sec|Non-2xx' "$work/wrk.txt"
go tool pprof -top -nodecount=40 "$out/mcpdir" "$out/$load.pprof" 2>/dev/null | sed -n '4,50p'
