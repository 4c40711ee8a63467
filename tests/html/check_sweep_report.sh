#!/bin/bash
# Headless-browser test of the sweep page (`clearfog sweep --html`, `clearfog report DIR`,
# docs/sweeps.md): the page loads in a real Chromium with no script error, its script finishes, the
# table has one row per point, the plots are there (three per axis and the Pareto front), and
# `report DIR` rewrites the same bytes. Usage: check_sweep_report.sh CLEARFOG SWEEP AXES WORKDIR.
# Exit 77 (skipped) without Chromium.
set -euo pipefail
clearfog=$1 sweep=$2 axes=$3 work=$4
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: Chromium is not installed (scripts/test installs the Debian package chromium)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
"$clearfog" sweep "$sweep" --jobs 2 --out "$work/out" --html "$work/out/report.html" > "$work/sweep.log" 2>&1
points=$(ls "$work/out/points" | grep -c '\.json$')
fail=0
cp "$work/out/report.html" "$work/first.html"
"$clearfog" report "$work/out" > /dev/null
cmp -s "$work/first.html" "$work/out/report.html" || { echo "FAIL: report DIR does not rewrite the same page"; fail=1; }
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile")
dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$work/out/report.html" 2>/dev/null)
body=$(grep -o '<body[^>]*>' <<< "$dom")
echo "body: $body ($points points)"
grep -q 'data-ready="yes"' <<< "$body" || { echo "FAIL: the page's script did not finish"; fail=1; }
grep -q 'data-errors="0"' <<< "$body" || { echo "FAIL: script errors on the page"; fail=1; }
grep -q "data-rows=\"$points\"" <<< "$body" || { echo "FAIL: expected $points table rows"; fail=1; }
plots=$((3 * axes + 1))
grep -q "data-plots=\"$plots\"" <<< "$body" || { echo "FAIL: expected $plots plots"; fail=1; }
for id in results plots pareto inputs; do
  grep -q "id=\"$id\"" <<< "$dom" || { echo "FAIL: no section $id"; fail=1; }
done
# A screenshot to look at; it must be a real picture, not an error page.
timeout 120 "$browser" "${flags[@]}" --window-size=1300,2600 --screenshot="$work/report.png" \
  "file://$work/out/report.html" > /dev/null 2>&1
size=$(stat -c %s "$work/report.png")
echo "screenshot: $work/report.png ($size bytes)"
[ "$size" -gt 50000 ] || { echo "FAIL: screenshot is $size bytes"; fail=1; }
exit $fail
