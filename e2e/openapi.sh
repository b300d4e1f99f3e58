#!/usr/bin/env bash
# Lints http/openapi.json with Redocly CLI (npm) and its recommended
# ruleset: any error fails. Installed into ${MCPDIR_CACHE:-~/.cache/mcpdir-e2e};
# skipped without npm, like the client suites.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MCPDIR_CACHE:-$HOME/.cache/mcpdir-e2e}
SPEC="@redocly/cli@2.77.0"
if ! command -v npm >/dev/null 2>&1; then
  echo "e2e/openapi.sh: SKIPPED: npm is not installed, so the OpenAPI document was not linted." >&2
  exit 0
fi
DIR="$CACHE/redocly"
. "$ROOT/e2e/lib.sh"
npm_once "$DIR" '{"name":"mcpdir-openapi-lint","private":true}' "$SPEC"
cd "$ROOT"
"$DIR/node_modules/.bin/redocly" lint --extends recommended --format stylish http/openapi.json
echo "openapi: 1 passed, 0 failed"
