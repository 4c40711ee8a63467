#!/bin/bash
# The sharding-choice experiment (scripts/sharding-experiment.py): 20 random DLRM configurations of
# four tables on 8 A100s, the planner's pick against the exhaustive simulated search, and what
# docs/dlrm.md states about it asserted. Usage: sharding_choice.sh CLEARFOG SOURCE_DIR WORK_DIR
set -euo pipefail
clearfog=$1 src=$2 work=$3
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
rm -rf "$work"
python3 "$src/scripts/sharding-experiment.py" "$clearfog" "$work" --configs 20 --tables 4 --jobs 2 --check
