#!/bin/bash
# CTest `cli.sweep_slurm`: `clearfog sweep FILE --slurm N` on a "cluster" whose sbatch is the fake one
# beside this script (it runs the array's tasks here, in sequence). The merged DIR/results.csv must
# equal, byte for byte, the one a local `clearfog sweep FILE` writes; after one task's shard loses a
# point, submitting the same line again recomputes that point only and gives the same file.
# Usage: slurm_sweep_test.sh CLEARFOG SWEEP_FILE WORK_DIR TASKS
set -euo pipefail
clearfog=$1 sweep=$2 work=$3 tasks=$4
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
export FAKE_SBATCH_STATE=$work/sbatch-state

"$clearfog" sweep "$sweep" --jobs 2 --out "$work/local" > /dev/null

out=$work/slurm
"$clearfog" sweep "$sweep" --slurm "$tasks" --out "$out" > "$work/generate.txt"
cat "$work/generate.txt"
grep -qx "#SBATCH --array=0-$((tasks - 1))" "$out/sweep.sbatch" || fail "no --array=0-$((tasks - 1)) in sweep.sbatch"
[[ -x $out/sweep.sbatch && -x $out/merge.sh ]] || fail "the scripts are not executable"
submit=$(tail -n 1 "$work/generate.txt")
[[ $submit == *sbatch* ]] || fail "the last line printed is no sbatch command: $submit"

# Submitted from another directory, as on a login node: the scripts hold absolute paths.
(cd / && PATH="$here:$PATH" sh -c "$submit") 2> "$work/submit.err" || { cat "$work/submit.err" >&2; fail "submission failed"; }
cmp "$work/local/results.csv" "$out/results.csv" || fail "merged results.csv differs from the local sweep's"
for ((i = 0; i < tasks; i++)); do [[ -d $out/shard-$i/points ]] || fail "no shard-$i"; done

# Resumable: task 1 lost a point (killed mid-way, say); the same line runs only that point again.
lost=$(ls "$out/shard-1/points" | head -n 1)
rm "$out/shard-1/points/$lost"
rm "$out/results.csv"
(cd / && PATH="$here:$PATH" sh -c "$submit") 2> "$work/submit.err" || { cat "$work/submit.err" >&2; fail "resubmission failed"; }
per_shard=$(grep -h "^sweep " "$out/logs/shard-1.out" | tail -n 1)
shard1_points=$(ls "$out/shard-1/points" | wc -l)
[[ $per_shard == *"$shard1_points points ($((shard1_points - 1)) already done)"* ]] ||
  fail "task 1 did not resume: $per_shard"
cmp "$work/local/results.csv" "$out/results.csv" || fail "results.csv differs after the resubmission"
# A directory name with a blank and a quote: the scripts quote every path (and, as no #SBATCH line
# can hold it, leave the task logs to Slurm's default).
odd="$work/odd dir's"
"$clearfog" sweep "$sweep" --slurm "$tasks" --out "$odd" > "$work/generate-odd.txt"
submit=$(tail -n 1 "$work/generate-odd.txt")
(cd "$work" && PATH="$here:$PATH" sh -c "$submit") 2> "$work/submit-odd.err" ||
  { cat "$work/submit-odd.err" >&2; fail "submission into an odd directory name failed"; }
cmp "$work/local/results.csv" "$odd/results.csv" || fail "results.csv in the odd directory differs"
echo "PASS: $tasks tasks, merged results.csv equals the local sweep's, resubmission resumes"
