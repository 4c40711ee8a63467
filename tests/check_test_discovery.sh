#!/usr/bin/env bash
# Every Catch2 test case must reach CTest as one test. catch_discover_tests passes names through
# CMake lists, so a name with ';' is split into fragments that match nothing and pass without
# running anything, and an unbalanced '[' or ']' stops the list being split at all (both happened).
# Usage: check_test_discovery.sh TEST_BINARY DISCOVERED_TESTS_CMAKE_DIR
set -euo pipefail
binary=$1
dir=$2
# Catch2 v2 exits with the number of test cases listed: not an error here.
names=$("$binary" --list-test-names-only || true)
names=$(grep -v '^$' <<<"$names")
bad=$(grep -E '[][;]' <<<"$names" || true)
if [ -n "$bad" ]; then
  echo "test names must not contain ';', '[' or ']' (CMake lists break on them):"
  echo "$bad"
  exit 1
fi
listed=$(grep -c . <<<"$names")
discovered=$(cat "$dir"/clearfog_tests_tests-*.cmake | grep -o 'add_test(' | wc -l)
if [ "$listed" != "$discovered" ]; then
  echo "the test binary has $listed test cases but CTest registered $discovered"
  exit 1
fi
echo "$listed test cases, each registered once"
