#!/bin/bash
# The communication-characterisation study (scenarios/studies/comm-characterisation/) run whole, and
# the findings docs/comm-characterisation-study.md states asserted on its results.
# Usage: comm_characterisation.sh CLEARFOG SOURCE_DIR WORK_DIR
set -euo pipefail
clearfog=$1 src=$2 work=$3
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
rm -rf "$work"
"$clearfog" sweep "$src/scenarios/studies/comm-characterisation/sweep.yaml" --comm-profile --simulate-oom --jobs 2 --out "$work"
for id in 0 71; do
  for f in comm.csv comm-summary.txt comm-sizes.svg; do test -s "$work/comm/$id/$f"; done
done
python3 "$src/scripts/comm-characterisation-table.py" --check "$work"
