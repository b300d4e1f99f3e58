#!/usr/bin/env bash
# REST search throughput of one replica on PostgreSQL + Redis beside the
# embedded default (SQLite, in-process limits), same binary, same corpus and
# queries, an unlimited key, alternating rounds: the ratio is what counts.
# Needs the shared data, PostgreSQL and Redis on loopback, and wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
duration=${BENCH_DURATION:-5s}
pg_setup mcpdir_bench
"$work/mcpdir" import --data-dir "$work/sqlite" "$data/packages-corpus.jsonl" | sed -n 1p
start=$(date +%s.%N)
"$work/mcpdir" import --database-url "$dburl" "$data/packages-corpus.jsonl" | sed -n 1p
echo "import into PostgreSQL took $(echo "$(date +%s.%N) - $start" | bc) s"
lite_key=$("$work/mcpdir" keys create --data-dir "$work/sqlite" --name bench --rate-limit unlimited | sed -n 1p)
pg_key=$("$work/mcpdir" keys create --database-url "$dburl" --name bench --rate-limit unlimited | sed -n 1p)
lite_port=$(free_port); pg_port=$(free_port)
"$work/mcpdir" serve --data-dir "$work/sqlite" --addr "127.0.0.1:$lite_port" --no-starter --log-level warn & pids+=($!)
"$work/mcpdir" serve --database-url "$dburl" --redis-url redis://127.0.0.1:6379/0 --addr "127.0.0.1:$pg_port" --no-starter --log-level warn & pids+=($!)
for p in $lite_port $pg_port; do
  for _ in $(seq 300); do curl -fs "http://127.0.0.1:$p/readyz" >/dev/null && break; sleep 0.1; done
done
write_queries "$data" "$work/queries"
rest_lua "$work/queries.txt" "$lite_key" > "$work/lite.lua"; rest_lua "$work/queries.txt" "$pg_key" > "$work/pg.lua"
rps() { wrk -t2 -c64 -d"$duration" -s "$1" "$2" | awk '/Requests\/sec/ {print $2}'; }
ratios=()
for round in $(seq "${BENCH_ROUNDS:-3}"); do
  lite=$(rps "$work/lite.lua" "http://127.0.0.1:$lite_port/")
  pgr=$(rps "$work/pg.lua" "http://127.0.0.1:$pg_port/")
  ratios+=("$(echo "scale=3; $pgr / $lite" | bc)")
  echo "round $round: SQLite replica $lite req/s; PostgreSQL + Redis replica $pgr req/s"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print "PostgreSQL + Redis / SQLite, median of " NR " rounds: " a[int((NR+1)/2)]}'
