#!/bin/bash
# Headless-browser test of the comparison page (`clearfog compare --format json` then
# `clearfog report FILE.json`, docs/sweeps.md): no script error, its script finishes, one table row
# and one plot per platform of the comparison. Usage: check_compare_report.sh CLEARFOG COMPARE
# PLATFORMS WORKDIR. Exit 77 (skipped) without Chromium.
set -euo pipefail
clearfog=$1 compare=$2 platforms=$3 work=$4
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: Chromium is not installed (scripts/test installs the Debian package chromium)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
"$clearfog" compare "$compare" --jobs 2 --format json > "$work/compare.json" 2> "$work/compare.log"
"$clearfog" report "$work/compare.json" > /dev/null
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile")
dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$work/compare.html" 2>/dev/null)
body=$(grep -o '<body[^>]*>' <<< "$dom")
echo "body: $body"
fail=0
grep -q 'data-ready="yes"' <<< "$body" || { echo "FAIL: the page's script did not finish"; fail=1; }
grep -q 'data-errors="0"' <<< "$body" || { echo "FAIL: script errors on the page"; fail=1; }
grep -q "data-rows=\"$platforms\"" <<< "$body" || { echo "FAIL: expected $platforms table rows"; fail=1; }
grep -q "data-plots=\"$platforms\"" <<< "$body" || { echo "FAIL: expected $platforms plots"; fail=1; }
timeout 120 "$browser" "${flags[@]}" --window-size=1300,1000 --screenshot="$work/compare.png" \
  "file://$work/compare.html" > /dev/null 2>&1
size=$(stat -c %s "$work/compare.png")
echo "screenshot: $work/compare.png ($size bytes)"
[ "$size" -gt 30000 ] || { echo "FAIL: screenshot is $size bytes"; fail=1; }
exit $fail
