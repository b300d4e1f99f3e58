# bench/lib.sh: what the bench scripts share; sourced from the top of the
# tree (`. bench/lib.sh`).

# data is the shared data set: MCPDIR_SHARED_DATA, or ../shared/data beside
# the tree.
data=${MCPDIR_SHARED_DATA:-$(pwd)/../shared/data}

# need_corpus SCRIPT ends SCRIPT, skipped (exit 0), where the shared data
# set has no packages corpus.
need_corpus() { [ -f "$data/packages-corpus.jsonl" ] || { echo "$1: $data/packages-corpus.jsonl not found: skipped"; exit 0; }; }

# free_port prints a TCP port free on loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# write_queries DATA OUT [SEED]: the 40 judged queries of
# DATA/relevance/dev.jsonl, or with SEED queries never asked before (issue
# 36): the judged queries of every set (also search/testdata's), then
# keywords of one to four corpus words, 20,000 distinct ones in an order
# shuffled by SEED. Written URL-encoded to OUT.txt and as JSON strings to
# OUT.json.txt, one a line, for wrk to cycle through.
write_queries() {
  python3 - "$1" "$2" "${3:-}" search/testdata <<'PY'
import json, random, re, sys, urllib.parse
data, out, seed, testdata = sys.argv[1:5]
qs = [json.loads(line)["query"] for line in open(data + "/relevance/dev.jsonl")]
if seed:
    for f in ("nl.jsonl", "nl-dev.jsonl", "extra-judgments.jsonl"):
        qs += [json.loads(line)["query"] for line in open(testdata + "/" + f)]
    qs = list(dict.fromkeys(qs))
    words = sorted({w for line in open(data + "/packages-corpus.jsonl")
                    for w in re.findall(r"[a-z]{3,}", (json.loads(line).get("brief") or "").lower())})
    rng, seen = random.Random(int(seed)), set(qs)
    while len(qs) < 20000:
        q = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        if q not in seen:
            seen.add(q)
            qs.append(q)
    rng.shuffle(qs)
open(out + ".txt", "w").write("".join(urllib.parse.quote_plus(q) + "\n" for q in qs))
open(out + ".json.txt", "w").write("".join(json.dumps(q) + "\n" for q in qs))
PY
}

# write_asks OUT: sentences never asked before, as people ask them: the
# 4,480 requests of search/testdata/sampled-asks.jsonl (paraphrases,
# questions, pasted tasks, other languages), written as write_queries
# writes.
write_asks() {
  python3 - "$1" search/testdata/sampled-asks.jsonl <<'PY'
import json, sys, urllib.parse
out, asks = sys.argv[1:3]
qs = list(dict.fromkeys(json.loads(line)["query"] for line in open(asks)))
open(out + ".txt", "w").write("".join(urllib.parse.quote_plus(q) + "\n" for q in qs))
open(out + ".json.txt", "w").write("".join(json.dumps(q) + "\n" for q in qs))
PY
}

# rest_lua QUERIES KEY prints a wrk script that asks REST search for the
# URL-encoded queries of the file QUERIES in turn, with the API key KEY.
rest_lua() {
  cat <<LUA
local queries = {}
for line in io.lines("$1") do queries[#queries + 1] = line end
local i = 0
wrk.headers["Authorization"] = "Bearer $2"
request = function()
  i = i % #queries + 1
  return wrk.format("GET", "/api/open/v1/search?keywords=" .. queries[i])
end
LUA
}

# each_lua QUERIES SIZES KEY prints a wrk script that asks the equal-body
# limit as rest_lua asks search, query by query with the key KEY, for a body
# of the size in the same line of SIZES (response_sizes): the same requests
# from the same client, each answered with a body of its answer's size.
each_lua() {
  cat <<LUA
local queries, sizes = {}, {}
for line in io.lines("$1") do queries[#queries + 1] = line end
for line in io.lines("$2") do sizes[#sizes + 1] = line end
local i = 0
wrk.headers["Authorization"] = "Bearer $3"
request = function()
  i = i % #queries + 1
  return wrk.format("GET", "/debug/baseline?bytes=" .. sizes[i] .. "&keywords=" .. queries[i])
end
LUA
}

# response_sizes URL KEY QUERIES prints the size in bytes of REST search's
# answer to each URL-encoded query of the file QUERIES, one a line, asked on
# one kept-alive connection.
response_sizes() {
  python3 - "$1" "$2" "$3" <<'PY'
import http.client, sys, urllib.parse
url, key, queries = sys.argv[1:4]
conn = http.client.HTTPConnection(urllib.parse.urlsplit(url).netloc)
for line in open(queries):
    conn.request("GET", "/api/open/v1/search?keywords=" + line.strip(), headers={"Authorization": "Bearer " + key})
    print(len(conn.getresponse().read()))
PY
}

# mcp_sessions URL KEY prints the ids of 16 Streamable HTTP sessions
# (2025-11-25) opened and initialized at the server URL with the API key
# KEY, as desktop clients keep one open: the 16 a key may hold.
mcp_sessions() {
  local headers sid
  headers=$(mktemp)
  for _ in $(seq 16); do
    curl -fsS -D "$headers" -o /dev/null -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' "$1/api/open/mcp"
    sid=$(awk -F': ' 'tolower($1)=="mcp-session-id" {print $2}' "$headers" | tr -d '\r')
    curl -fsS -o /dev/null -H "Authorization: Bearer $2" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
      -H "Mcp-Session-Id: $sid" -H 'MCP-Protocol-Version: 2025-11-25' -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$1/api/open/mcp"
    echo "$sid"
  done
  rm -f "$headers"
}

# pg_setup NAME: what a script on PostgreSQL starts with: pg (the server's
# URL, MCPDIR_TEST_POSTGRES or the local one), a folder work, pids for the
# servers it starts (killed on exit), a database NAME_PID of its own at
# dburl (dropped on exit, with work), and $work/mcpdir built from this tree.
pg_setup() {
  pg=${MCPDIR_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
  work=$(mktemp -d)
  pids=()
  db=$1_$$
  trap 'kill "${pids[@]}" 2>/dev/null || true; psql "$pg" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  go build -o "$work/mcpdir" ./cmd/mcpdir
  psql "$pg" -qc "CREATE DATABASE $db" >/dev/null
  dburl=${pg/\/postgres\?/\/$db?}
}
