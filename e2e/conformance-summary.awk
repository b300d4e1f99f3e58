# The conformance suite's summary, reworded for this repository's log:
# a scenario e2e/conformance-baseline.yml expects to fail reads "expected",
# not as an error, and only a failure outside the baseline reads "✗".
# Usage: awk -f e2e/conformance-summary.awk e2e/conformance-baseline.yml OUTPUT
function checks(n) { return n == 1 ? "1 check" : n " checks" }
FNR == NR { if ($1 == "-") expected[$2] = 1; next }
/=== SUMMARY ===/ { on = 1; next }
on && ($1 == "✓" || $1 == "✗") && $4 == "passed," {
  name = $2; sub(/:$/, "", name)
  if ($1 == "✓") {
    printf "✓ %s: %s ok\n", name, checks($3)
  } else if (name in expected) {
    printf "~ %s: expected (in e2e/conformance-baseline.yml): %s ok, %d failing by design\n", name, checks($3), $5
    byDesign += $5
  } else {
    printf "✗ %s: %s ok, %d failed\n", name, checks($3), $5
  }
  next
}
on && /^Total:/ {
  printf "conformance checks in all: %d ok, %d expected to fail, %d failed\n", $2, byDesign, $4 - byDesign
  on = 0
  next
}
on && NF > 0 { print }
