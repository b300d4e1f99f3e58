# The conformance suite's summary, reworded for this repository's log:
# a scenario e2e/conformance-baseline.yml expects to fail reads "expected",
# not as an error, and only a failure outside the baseline reads "✗".
# Usage: awk -f e2e/conformance-summary.awk e2e/conformance-baseline.yml OUTPUT
FNR == NR { if ($1 == "-") expected[$2] = 1; next }
/=== SUMMARY ===/ { on = 1; next }
on && ($1 == "✓" || $1 == "✗") && $4 == "passed," {
  name = $2; sub(/:$/, "", name)
  if ($1 == "✓") {
    printf "✓ %s: %d checks ok\n", name, $3
  } else if (name in expected) {
    printf "~ %s: expected (in e2e/conformance-baseline.yml): %d checks ok, %d fail by design\n", name, $3, $5
    byDesign += $5
  } else {
    printf "✗ %s: %d checks ok, %d failed\n", name, $3, $5
  }
  next
}
on && /^Total:/ {
  printf "conformance checks in all: %d ok, %d expected to fail, %d failed\n", $2, byDesign, $4 - byDesign
  on = 0
  next
}
on && NF > 0 { print }
