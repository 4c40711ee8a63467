#!/bin/bash
# Headless-browser test of `clearfog run --html` (docs/outputs.md): the page loads in a real Chromium
# with no script error, its script finishes, and the timeline has one lane per device and stream.
# Usage: check_html_report.sh CLEARFOG SCENARIO EXPECTED_LANES WORKDIR. Exit 77 (skipped) without Chromium.
set -euo pipefail
clearfog=$1 scenario=$2 lanes=$3 work=$4
source "$(dirname "$0")/browser.sh"
fail=0
find_browser_or_skip
mkdir -p "$work"
"$clearfog" run "$scenario" --html "$work/report.html" > /dev/null
load_page "$work/report.html"
grep -q "data-timeline-rows=\"$lanes\"" <<< "$body" || { echo "FAIL: expected $lanes timeline lanes"; fail=1; }
for id in breakdown memory timeline communication summary platform inputs; do
  grep -q "id=\"$id\"" <<< "$dom" || { echo "FAIL: no section $id"; fail=1; }
done
screenshot "$work/report.html" "$work/report.png" 2600 50000  # build/html-report/report.png
exit $fail
