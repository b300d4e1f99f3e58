# e2e/lib.sh: what the e2e scripts share; sourced with
# `. "$ROOT/e2e/lib.sh"`.

# npm_once DIR PACKAGE_JSON SPEC...: installs the npm packages SPEC into
# DIR, once per set of versions (DIR/.installed holds the set installed
# last), with PACKAGE_JSON as DIR/package.json.
npm_once() {
  local dir=$1 package_json=$2
  shift 2
  if [ "$(cat "$dir/.installed" 2>/dev/null || true)" != "$*" ]; then
    printf 'installing %s into %s\n' "$*" "$dir" >&2
    mkdir -p "$dir"
    printf '%s\n' "$package_json" >"$dir/package.json"
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$@" >&2
    printf '%s' "$*" >"$dir/.installed"
  fi
}
