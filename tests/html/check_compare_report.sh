#!/bin/bash
# Headless-browser test of the comparison page (`clearfog compare --format json` then
# `clearfog report FILE.json`, docs/sweeps.md): no script error, its script finishes, one table row
# and one plot per platform of the comparison. Usage: check_compare_report.sh CLEARFOG COMPARE
# PLATFORMS WORKDIR. Exit 77 (skipped) without Chromium.
set -euo pipefail
clearfog=$1 compare=$2 platforms=$3 work=$4
source "$(dirname "$0")/browser.sh"
fail=0
find_browser_or_skip
rm -rf "$work"
mkdir -p "$work"
"$clearfog" compare "$compare" --jobs 2 --format json > "$work/compare.json" 2> "$work/compare.log"
"$clearfog" report "$work/compare.json" > /dev/null
load_page "$work/compare.html"
grep -q "data-rows=\"$platforms\"" <<< "$body" || { echo "FAIL: expected $platforms table rows"; fail=1; }
grep -q "data-plots=\"$platforms\"" <<< "$body" || { echo "FAIL: expected $platforms plots"; fail=1; }
screenshot "$work/compare.html" "$work/compare.png" 1000 30000
exit $fail
