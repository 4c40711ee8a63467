#!/bin/bash
# Headless-browser test of `clearfog run --html` (docs/outputs.md): the page loads in a real Chromium
# with no script error, its script finishes, and the timeline has one lane per device and stream.
# Usage: check_html_report.sh CLEARFOG SCENARIO EXPECTED_LANES WORKDIR. Exit 77 (skipped) without Chromium.
set -euo pipefail
clearfog=$1 scenario=$2 lanes=$3 work=$4
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: Chromium is not installed (scripts/test installs the Debian package chromium)"
  exit 77
fi
mkdir -p "$work"
"$clearfog" run "$scenario" --html "$work/report.html" > /dev/null
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile")
dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$work/report.html" 2>/dev/null)
body=$(grep -o '<body[^>]*>' <<< "$dom")
echo "body: $body"
fail=0
grep -q 'data-ready="yes"' <<< "$body" || { echo "FAIL: the page's script did not finish"; fail=1; }
grep -q 'data-errors="0"' <<< "$body" || { echo "FAIL: script errors on the page"; fail=1; }
grep -q "data-timeline-rows=\"$lanes\"" <<< "$body" || { echo "FAIL: expected $lanes timeline lanes"; fail=1; }
for id in breakdown memory timeline communication summary platform inputs; do
  grep -q "id=\"$id\"" <<< "$dom" || { echo "FAIL: no section $id"; fail=1; }
done
# A screenshot to look at (build/html-report/report.png); it must be a real picture, not an error page.
timeout 120 "$browser" "${flags[@]}" --window-size=1300,2600 --screenshot="$work/report.png" \
  "file://$work/report.html" > /dev/null 2>&1
size=$(stat -c %s "$work/report.png")
echo "screenshot: $work/report.png ($size bytes)"
[ "$size" -gt 50000 ] || { echo "FAIL: screenshot is $size bytes"; fail=1; }
exit $fail
