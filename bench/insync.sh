#!/usr/bin/env bash
# Replicas in step: three replicas on one PostgreSQL (no Redis needed), then
# an import of the packages corpus through the CLI; how long after the
# import ends until the three agree on a search's final total; then one
# admin change on one replica and how long until the other two serve it.
# Needs the shared data and PostgreSQL on loopback. Issue 36's goals: 5 s
# after the import, 2 s after a single change.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
pg_setup mcpdir_insync
ports=()
for _ in 1 2 3; do
  p=$(free_port); ports+=("$p")
  "$work/mcpdir" serve --database-url "$dburl" --addr "127.0.0.1:$p" --no-starter --log-level warn & pids+=($!)
done
for p in "${ports[@]}"; do
  for _ in $(seq 300); do curl -fs "http://127.0.0.1:$p/readyz" >/dev/null && break; sleep 0.1; done
done
key=$("$work/mcpdir" keys create --database-url "$dburl" --name bench --rate-limit unlimited | sed -n 1p)
admin=$("$work/mcpdir" keys create --database-url "$dburl" --name admin --scope admin --rate-limit unlimited | sed -n 1p)
"$work/mcpdir" import --database-url "$dburl" "$data/packages-corpus.jsonl" | sed -n 1p
python3 - "$key" "$admin" "${ports[@]}" <<'PY'
import json, sys, time, urllib.request
key, admin, ports = sys.argv[1], sys.argv[2], sys.argv[3:]
def total(p):
    req = urllib.request.Request(f"http://127.0.0.1:{p}/api/open/v1/search?keywords=server", headers={"Authorization": "Bearer " + key})
    return json.load(urllib.request.urlopen(req))["total"]
start, seen = time.time(), []
while time.time() - start < 60:
    seen.append((time.time() - start, [total(p) for p in ports]))
    if len(seen) > 10 and all(s[1] == seen[-1][1] for s in seen[-10:]) and len(set(seen[-1][1])) == 1:
        break
    time.sleep(0.1)
final = seen[-1][1][0]
agreed = next(t for t, ts in seen if all(x == final for x in ts))
print(f"after the import: the three replicas agree on the final total ({final}) {agreed:.2f} s after it ended")
# One change on the first replica; the other two.
req = urllib.request.Request(f"http://127.0.0.1:{ports[0]}/api/admin/v1/entries", method="POST",
    data=json.dumps({"name": "insync-probe", "brief": "A probe of replicas in step", "website_url": "https://example.com/insync-probe"}).encode(),
    headers={"Authorization": "Bearer " + admin, "Content-Type": "application/json"})
created = json.load(urllib.request.urlopen(req))
start = time.time()
late = {}
while len(late) < 2 and time.time() - start < 30:
    for p in ports[1:]:
        if p in late:
            continue
        try:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{p}/api/open/v1/servers/{created['id']}", headers={"Authorization": "Bearer " + key}))
            late[p] = time.time() - start
        except urllib.error.HTTPError:
            pass
    time.sleep(0.01)
print("one change on one replica: served by the other two after " + ", ".join(f"{v:.2f} s" for v in late.values()))
PY
