# Shared steps of the headless-browser tests (sourced by check_*_report.sh): find Chromium or skip
# (exit 77), load a page and check its script finished without errors, take a screenshot to look at.
# The caller sets `work` and `fail` (0) and uses `dom` and `body` after load_page.

find_browser_or_skip() {
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [ -z "$browser" ]; then
    echo "skipped: Chromium is not installed (scripts/test installs the Debian package chromium)"
    exit 77
  fi
  flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile")
}

# load_page FILE: the DOM after the page's scripts ran ($dom, its <body> tag in $body); fails the
# test when the script did not finish or counted errors.
load_page() {
  dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$1" 2>/dev/null)
  body=$(grep -o '<body[^>]*>' <<< "$dom")
  echo "body: $body"
  grep -q 'data-ready="yes"' <<< "$body" || { echo "FAIL: the page's script did not finish"; fail=1; }
  grep -q 'data-errors="0"' <<< "$body" || { echo "FAIL: script errors on the page"; fail=1; }
}

# screenshot FILE PNG HEIGHT MIN_BYTES: a picture to look at; it must be a real one, not an error page.
screenshot() {
  timeout 120 "$browser" "${flags[@]}" --window-size="1300,$3" --screenshot="$2" "file://$1" > /dev/null 2>&1
  local size
  size=$(stat -c %s "$2")
  echo "screenshot: $2 ($size bytes)"
  [ "$size" -gt "$4" ] || { echo "FAIL: screenshot is $size bytes"; fail=1; }
}
