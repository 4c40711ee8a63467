#!/bin/bash
# Headless-browser test of the sweep page (`clearfog sweep --html`, `clearfog report DIR`,
# docs/sweeps.md): the page loads in a real Chromium with no script error, its script finishes, the
# table has one row per point, the plots are there (three per axis and the Pareto front), and
# `report DIR` rewrites the same bytes. Usage: check_sweep_report.sh CLEARFOG SWEEP AXES WORKDIR.
# Exit 77 (skipped) without Chromium.
set -euo pipefail
clearfog=$1 sweep=$2 axes=$3 work=$4
source "$(dirname "$0")/browser.sh"
fail=0
find_browser_or_skip
rm -rf "$work"
mkdir -p "$work"
"$clearfog" sweep "$sweep" --jobs 2 --out "$work/out" --html "$work/out/report.html" > "$work/sweep.log" 2>&1
points=$(ls "$work/out/points" | grep -c '\.json$')
cp "$work/out/report.html" "$work/first.html"
"$clearfog" report "$work/out" > /dev/null
cmp -s "$work/first.html" "$work/out/report.html" || { echo "FAIL: report DIR does not rewrite the same page"; fail=1; }
load_page "$work/out/report.html"
echo "$points points"
grep -q "data-rows=\"$points\"" <<< "$body" || { echo "FAIL: expected $points table rows"; fail=1; }
plots=$((3 * axes + 1))
grep -q "data-plots=\"$plots\"" <<< "$body" || { echo "FAIL: expected $plots plots"; fail=1; }
for id in results plots pareto inputs; do
  grep -q "id=\"$id\"" <<< "$dom" || { echo "FAIL: no section $id"; fail=1; }
done
screenshot "$work/out/report.html" "$work/report.png" 2600 50000
exit $fail
