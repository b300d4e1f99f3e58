#!/usr/bin/env bash
# The container image for real, with podman: build it (make image), check its
# configuration, run it on a named volume with a read-only root filesystem,
# make a key with `podman exec … mcpdir keys create`, search through REST and
# MCP, run its health check; then two replicas of it (host network) on this
# machine's PostgreSQL (a fresh database) and Redis, and check that a key made
# on one is rate-limited across both.
# Skipped without podman, except in CI (CI=true), where .ci/run installs it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf 'e2e/image.sh: %s\n' "$*" >&2; }
fail() { log "FAIL: $*"; [ -s "${PLOG:-}" ] && grep -v systemd "$PLOG" >&2; exit 1; }

if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
  if [ "${CI:-}" = true ]; then log "podman or runc missing in CI"; exit 1; fi
  log "SKIPPED: needs podman and runc (apt-get install podman runc)"
  exit 0
fi
PG_ADMIN=${MCPDIR_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
REDIS_ADDR=${MCPDIR_TEST_REDIS:-127.0.0.1:6379}

# crun cannot set its cgroups on machines like CI's: runc, and explicit
# limits, which the runtime would otherwise try to copy from the host.
RUN=(podman --runtime runc run --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
TAG=mcpdir:e2e-$$
NAME=mcpdir-e2e-$$
DB=mcpdir_e2e_$$_$RANDOM
REDIS_DB=15 # the Go tests take 3..14
WORK=$(mktemp -d)
cleanup() {
  for c in "$NAME" "$NAME-a" "$NAME-b"; do podman rm -f -v -t 2 "$c" >/dev/null 2>&1 || true; done
  podman volume rm -f "$NAME" >/dev/null 2>&1 || true
  podman rmi -f "$TAG" >/dev/null 2>&1 || true
  psql -q "$PG_ADMIN" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { # URL: /readyz 200 within 60 s
  for _ in $(seq 300); do curl -fs -m 2 "$1/readyz" >/dev/null && return 0; sleep 0.2; done
  return 1
}
# podman without systemd says at every run that it cannot add health-check
# timers (the check itself runs on demand: podman healthcheck run): its
# stderr goes to a file, shown on failure. Not a pipe: a detached
# container's monitor would hold it open.
PLOG=$WORK/podman.log

start=$(date +%s)
log "building the image ($TAG)"
make -C "$ROOT" -s image CONTAINER=podman IMAGE="$TAG" BUILD_FLAGS=--layers=false >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; fail "make image"; }

# The image as the docs describe it.
size=$(podman image inspect "$TAG" --format '{{.Size}}')
inspect() { podman image inspect "$TAG" --format "$1"; }
[ "$(inspect '{{.Config.User}}')" = 65532:65532 ] || fail "user: $(inspect '{{.Config.User}}')"
inspect '{{json .Config.ExposedPorts}}' | grep -q '"8080/tcp"' || fail "8080 not exposed"
inspect '{{json .Config.Volumes}}' | grep -q '"/data"' || fail "/data is not a volume"
inspect '{{json .Config.Healthcheck}}' | grep -q 'health' || fail "no health check: $(inspect '{{json .Config.Healthcheck}}')"
for label in source version licenses revision; do
  [ -n "$(inspect "{{index .Config.Labels \"org.opencontainers.image.$label\"}}")" ] || fail "label $label missing"
done
# The files: /tmp writable by anyone (sticky), /data the user's.
ctr=$(podman create "$TAG" 2>>"$PLOG")
podman export "$ctr" | tar tvf - >"$WORK/files"
podman rm -v "$ctr" >/dev/null 2>>"$PLOG"
grep -Eq '^drwxrwxrwt .* tmp/$' "$WORK/files" || fail "/tmp: $(grep ' tmp/$' "$WORK/files")"
grep -Eq '^d[rwx-]+ (mcpdir/mcpdir|65532/65532) .* data/$' "$WORK/files" || fail "/data: $(grep ' data/$' "$WORK/files")"
version=$("${RUN[@]}" --rm "$TAG" version 2>>"$PLOG")
[ "$version" = "mcpdir $(inspect '{{index .Config.Labels "org.opencontainers.image.version"}}')" ] ||
  fail "mcpdir version says $version, the label $(inspect '{{index .Config.Labels "org.opencontainers.image.version"}}')"

# One container, the embedded store on a named volume, a read-only root
# filesystem, the port published: it listens on every interface inside.
# Its memory is capped, and the server keeps its heap below the cap.
PORT=$(free_port)
"${RUN[@]}" -d --name "$NAME" --read-only --memory 512m -v "$NAME:/data" -p "127.0.0.1:$PORT:8080" "$TAG" 2>>"$PLOG" >/dev/null
BASE=http://127.0.0.1:$PORT
wait_ready "$BASE" || { podman logs "$NAME" >&2; fail "the container did not become ready"; }
# (The log is read whole first: grep -q stopping early would fail the
# pipeline under pipefail.)
podman logs "$NAME" >"$WORK/limit.log" 2>&1
grep -q '"container_bytes":536870912' "$WORK/limit.log" ||
  fail "the server did not set its heap limit from the container's 512m: $(head -c 600 "$WORK/limit.log")"
podman --runtime runc healthcheck run "$NAME" 2>>"$PLOG" || fail "the image's health check failed on a ready server"
out=$(podman exec "$NAME" mcpdir keys create --name e2e) || fail "keys create in the container"
KEY=${out%%$'\n'*}
[[ $KEY == mcpd_* ]] || fail "keys create printed $KEY"
curl -fs -H "Authorization: Bearer $KEY" "$BASE/api/open/v1/search?keywords=postgres" >"$WORK/rest.json" ||
  fail "REST search"
grep -q '"total"' "$WORK/rest.json" || fail "REST search answered $(head -c 300 "$WORK/rest.json")"
# MCP: initialize, then a tool call in the session it opened.
MCP=(curl -fs -D "$WORK/headers" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json'
  -H 'Accept: application/json, text/event-stream' "$BASE/api/open/mcp")
"${MCP[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e-image","version":"1"}}}' >"$WORK/init" ||
  fail "MCP initialize"
grep -q '"serverInfo"' "$WORK/init" || fail "MCP initialize answered $(head -c 300 "$WORK/init")"
SESSION=$(tr -d '\r' <"$WORK/headers" | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')
MCP+=(-H "Mcp-Session-Id: $SESSION" -H 'Mcp-Protocol-Version: 2025-06-18')
"${MCP[@]}" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null || fail "MCP initialized"
"${MCP[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_mcp","arguments":{"keywords":"postgres"}}}' >"$WORK/call" ||
  fail "MCP tools/call"
grep -q '"result"' "$WORK/call" && ! grep -q '"isError":true' "$WORK/call" ||
  fail "MCP tools/call answered $(head -c 300 "$WORK/call")"
podman rm -f -v -t 10 "$NAME" >/dev/null 2>>"$PLOG"

# Two replicas on PostgreSQL and Redis, host network: one budget. Without
# them the replicas are skipped, as the Go integration tests are (not in CI).
if ! psql -q "$PG_ADMIN" -c "SELECT 1" >/dev/null 2>&1 || ! redis-cli -u "redis://$REDIS_ADDR" ping >/dev/null 2>&1; then
  [ "${CI:-}" = true ] && fail "PostgreSQL ($PG_ADMIN) or Redis ($REDIS_ADDR) is not reachable in CI"
  log "ok: image $(awk -v s="$size" 'BEGIN{printf "%.1f MB", s/1e6}'), REST and MCP, health check; replicas SKIPPED: PostgreSQL or Redis not reachable"
  exit 0
fi
psql -q "$PG_ADMIN" -c "CREATE DATABASE $DB" >/dev/null || fail "cannot create a database on $PG_ADMIN"
DB_URL=$(python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$PG_ADMIN" "$DB")
redis-cli -u "redis://$REDIS_ADDR/$REDIS_DB" flushdb >/dev/null
ENVS=(-e "MCPDIR_DATABASE_URL=$DB_URL" -e "MCPDIR_REDIS_URL=redis://$REDIS_ADDR/$REDIS_DB" -e MCPDIR_NO_STARTER=1)
PA=$(free_port) PB=$(free_port)
"${RUN[@]}" -d --name "$NAME-a" --network host "${ENVS[@]}" -e "MCPDIR_ADDR=127.0.0.1:$PA" "$TAG" 2>>"$PLOG" >/dev/null
"${RUN[@]}" -d --name "$NAME-b" --network host "${ENVS[@]}" -e "MCPDIR_ADDR=127.0.0.1:$PB" "$TAG" 2>>"$PLOG" >/dev/null
wait_ready "http://127.0.0.1:$PA" || { podman logs "$NAME-a" >&2; fail "replica a not ready"; }
wait_ready "http://127.0.0.1:$PB" || { podman logs "$NAME-b" >&2; fail "replica b not ready"; }
out=$(podman exec "$NAME-a" mcpdir keys create --name shared) || fail "keys create in replica a"
KEY=${out%%$'\n'*}
status() { curl -s -o "$WORK/body" -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$1/api/open/v1/search?keywords=postgres"; }
# The key reaches replica b by the change feed: wait for it there.
for _ in $(seq 50); do [ "$(status "$PB")" = 200 ] && break; sleep 0.1; done
[ "$(tr -d '\n' <"$WORK/body" | head -c 1)" = "{" ] || fail "replica b does not know the key: $(cat "$WORK/body")"
# That was 1 of the default 20 an hour; 19 more, alternating.
for i in $(seq 19); do
  port=$PA; [ $((i % 2)) = 0 ] || port=$PB
  code=$(status "$port")
  [ "$code" = 200 ] || fail "request $((i + 1)) of 20 answered $code: $(cat "$WORK/body")"
done
for port in "$PA" "$PB"; do
  code=$(status "$port")
  # A spent budget is 401 rate_limited on REST (the spec's status, README).
  [ "$code" = 401 ] && grep -q '"rate_limited"' "$WORK/body" ||
    fail "past the budget, replica on $port answered $code: $(cat "$WORK/body")"
done
log "ok: image $(awk -v s="$size" 'BEGIN{printf "%.1f MB", s/1e6}'), REST and MCP, health check, one budget across two replicas ($(($(date +%s) - start)) s)"
