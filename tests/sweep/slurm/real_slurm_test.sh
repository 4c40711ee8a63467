#!/bin/bash
# CTest `cli.sweep_slurm_real`: `clearfog sweep FILE --slurm N` submitted with the real `sbatch` to a
# real single-node Slurm (slurmctld, slurmd and munged from Debian's slurmctld, slurmd, slurm-client
# and munge packages), which this script starts in WORK_DIR/cluster and always stops again. The merged
# DIR/results.csv must equal, byte for byte, the one a local `clearfog sweep FILE` writes; after one
# task's shard loses a point, submitting the same line again recomputes that point only and gives the
# same file; an output directory whose name holds a blank and a quote works too.
# The cluster is private to the run: its own munge key and socket, its own ports (free ones, chosen at
# random), its own state, spool, log and pid files, so that tests run side by side (ctest -j) and one
# run right after another do not meet. It needs no system service and no systemd.
# Exit 77 (SKIP) only where Slurm cannot start: packages absent, not root, or the daemons do not come
# up (their logs' tails are printed). Every wait is bounded.
# Usage: real_slurm_test.sh CLEARFOG SWEEP_FILE WORK_DIR TASKS
set -euo pipefail
clearfog=$1 sweep=$2 work=$3 tasks=$4
[[ $work == /* ]] || work=$PWD/$work
work=${work%/}
cluster=$work/cluster
munge_dir=
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# WORK_DIR is removed, and every process that uses it is ended: never / or a top-level directory.
[[ $work == /*/* ]] || fail "WORK_DIR must be a directory at least two levels below /, not $work"
cd /  # this shell never holds a directory of the work tree: see work_pids

# --- The processes of this test's cluster, found by pid ----------------------------------------------
# Daemons run in the foreground, as children of this shell (their pids are $!). Job steps
# (slurmstepd, which detaches) and the jobs' processes are found as every process whose working
# directory or an open file lies in WORK_DIR: the daemons' logs, the spool, the submission directory.
# That also finds a cluster left behind by an earlier run that was killed before it could clean up.
daemon_pids=() ctld_pid='' ctld_port='' slurmd_port=''
work_pids() {
  local link target
  find /proc/[0-9]*/cwd /proc/[0-9]*/fd -maxdepth 1 -printf '%p\t%l\n' 2> /dev/null |
    while IFS=$'\t' read -r link target; do
      [[ $target == "$work" || $target == "$work"/* || $target == "$work (deleted)" ]] || continue
      link=${link#/proc/}
      echo "${link%%/*}"
    done | sort -un | grep -vx "$$" || true
}
alive() {  # pid: running (a zombie child, dead but not yet reaped, is not)
  local stat
  stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}
parent() {  # pid: its parent's pid (nothing once it has ended)
  local stat fields
  stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 0
  read -r -a fields <<< "${stat##*) }"
  echo "${fields[1]}"
}
stop_pids() {  # pids: SIGTERM, up to 10 s to end, then SIGKILL
  local pid left deadline=$((SECONDS + 10))
  [[ $# -gt 0 ]] || return 0
  kill -TERM "$@" 2> /dev/null || true
  while ((SECONDS < deadline)); do
    left=()
    for pid in "$@"; do alive "$pid" && left+=("$pid"); done
    [[ ${#left[@]} -eq 0 ]] && break
    sleep 0.1
  done
  for pid in "$@"; do alive "$pid" && kill -KILL "$pid" 2> /dev/null; done
  for pid in "$@"; do wait "$pid" 2> /dev/null || true; done  # reap our children
}
stop_cluster() {
  # Jobs first, so that slurmd ends their steps, and the steps (up to 5 s) to end by themselves; then
  # the daemons; then whatever is left in WORK_DIR.
  local deadline pid others
  if [[ -n $ctld_pid ]] && alive "$ctld_pid"; then
    timeout 15 scancel --quiet --user=root 2> /dev/null || true
    deadline=$((SECONDS + 15))
    while ((SECONDS < deadline)); do
      [[ -z $(timeout 10 squeue --noheader 2> /dev/null) ]] && break
      sleep 0.2
    done
    deadline=$((SECONDS + 5))
    while ((SECONDS < deadline)); do  # steps: neither a daemon nor a daemon's helper (slurmscriptd)
      others=0
      for pid in $(work_pids); do
        [[ " ${daemon_pids[*]} " == *" $pid "* || " ${daemon_pids[*]} " == *" $(parent "$pid") "* ]] || others=1
      done
      [[ $others -eq 0 ]] && break
      sleep 0.1
    done
  fi
  stop_pids "${daemon_pids[@]}"
  daemon_pids=() ctld_pid=
  # shellcheck disable=SC2046
  stop_pids $(work_pids)
  [[ -z ${munge_dir:-} ]] || rm -rf "$munge_dir"
  munge_dir=
}
on_exit() {
  local status=$?
  trap - EXIT INT TERM
  stop_cluster
  exit "$status"
}

# --- Can Slurm start here? ---------------------------------------------------------------------------
PATH=$PATH:/usr/sbin:/sbin
# Run inside a Slurm job, or by someone with defaults for sbatch (SBATCH_PARTITION, say), the client
# commands would take those for this cluster: none of them here.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO|SCONTROL|SCANCEL)_' || true)
missing=()
for cmd in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged mungekey munge unmunge timeout; do
  command -v "$cmd" > /dev/null || missing+=("$cmd")
done
[[ ${#missing[@]} -eq 0 ]] ||
  skip "no Slurm here (${missing[*]} not found): install the Debian packages slurmctld slurmd slurm-client munge"
[[ $(id -u) -eq 0 ]] || skip "a Slurm cluster runs its jobs through slurmd as root; this test runs as $(id -un)"

# A cluster left running by an earlier run that was killed (a CTest timeout, say) ends first.
# shellcheck disable=SC2046
stop_pids $(work_pids)
rm -rf "$work"
mkdir -p "$work"
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- A single-node cluster in WORK_DIR/cluster ---------------------------------------------------------
used_ports() {  # local TCP ports in use, in decimal
  local file slot address rest
  for file in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $file ]] || continue
    while read -r slot address rest; do
      [[ $slot == *: ]] && echo $((16#${address##*:}))
    done < "$file"
  done
  return 0
}
pick_ports() {  # sets ctld_port and slurmd_port: two free ports, below Linux's ephemeral range
  local used try base
  used=" $(used_ports | tr '\n' ' ') "
  for ((try = 0; try < 100; try++)); do
    base=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    if [[ $used != *" $base "* && $used != *" $((base + 1)) "* ]]; then
      ctld_port=$base slurmd_port=$((base + 1))
      return 0
    fi
  done
  fail "no two free TCP ports found in 20000-32000"
}
print_logs() {  # what the daemons wrote to stderr: all they log (in the foreground), early errors too
  local f
  for f in "$cluster"/log/*.out; do
    [[ -s $f ]] || continue
    echo "--- ${f#"$cluster"/}, its last lines:"
    tail -n 15 "$f"
  done
}
start_cluster() {  # returns 1 when a daemon does not come up (munged within 10 s, Slurm within 30 s)
  local node=$1 state deadline=$((SECONDS + 10))
  rm -rf "$cluster"
  mkdir -p "$cluster"/{state,spool,log}
  # munged: its key readable by root only, its socket in a directory that everyone may enter, and
  # so may every directory above it (a clone in a private temp directory is not): under /tmp.
  munge_dir=$(mktemp -d /tmp/clearfog-munge.XXXXXX) && chmod 755 "$munge_dir" || return 1
  mungekey --create --keyfile="$munge_dir/munge.key" 2> "$cluster/log/mungekey.log" || return 1
  munged --foreground --key-file="$munge_dir/munge.key" --socket="$munge_dir/socket" \
    --pid-file="$munge_dir/munged.pid" --seed-file="$munge_dir/munged.seed" \
    --log-file="$cluster/log/munged.log" < /dev/null > "$cluster/log/munged.out" 2>&1 &
  daemon_pids+=($!)
  until munge --no-input --socket="$munge_dir/socket" 2> /dev/null |
    unmunge --socket="$munge_dir/socket" > /dev/null 2>&1; do
    alive "${daemon_pids[-1]}" && ((SECONDS < deadline)) || return 1
    sleep 0.1
  done

  pick_ports
  cat > "$cluster/slurm.conf" << EOF
# A single-node cluster for clearfog's tests (tests/sweep/slurm/real_slurm_test.sh), all of it in $cluster.
ClusterName=clearfogtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_dir/socket
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/log/slurmctld.log
SlurmdLogFile=$cluster/log/slurmd.log
PlugStackConfig=$cluster/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# The node as configured here, whatever slurmd finds; back in service as soon as slurmd registers.
SlurmdParameters=config_overrides
ReturnToService=2
# Jobs start as soon as CPUs are free (Slurm waits up to 3 s by default); a cancelled job's processes
# get 5 s between SIGTERM and SIGKILL.
SchedulerParameters=batch_sched_delay=0
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  : > "$cluster/plugstack.conf"
  export SLURM_CONF=$cluster/slurm.conf
  slurmctld -D < /dev/null > "$cluster/log/slurmctld.out" 2>&1 &
  ctld_pid=$!
  daemon_pids+=($!)
  slurmd -D -N "$node" < /dev/null > "$cluster/log/slurmd.out" 2>&1 &
  daemon_pids+=($!)
  deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    alive "$ctld_pid" && alive "${daemon_pids[-1]}" || return 1
    state=$(timeout 3 sinfo --noheader --nodes="$node" --format=%t 2> /dev/null || true)
    [[ $state == idle ]] && return 0
    sleep 0.2
  done
  return 1
}

node=$(uname -n)
node=${node%%.*}
started=0
for attempt in 1 2; do  # again when another program took a port between its choice and its use
  if start_cluster "$node"; then started=1 && break; fi
  echo "Slurm did not come up (attempt $attempt; slurmctld on port $ctld_port, slurmd on $slurmd_port)"
  print_logs
  stop_cluster
  grep -qs "Address already in use" "$cluster"/log/*.out || break
done
[[ $started -eq 1 ]] || skip "slurmctld, slurmd or munged did not come up within 30 s (logs above)"
echo "Slurm $(sinfo --version | awk '{print $2}') up: node $node, slurmctld port $ctld_port, slurmd port $slurmd_port"

# --- The sweep ---------------------------------------------------------------------------------------
# Submits the line `clearfog sweep --slurm` printed (from directory $2) and waits (at most 90 s) until
# no job is left that can still run: the queue is empty, or holds only jobs whose dependency can never
# be satisfied (the merge, after a task failed). The merge job must have completed.
pending_jobs() {  # jobs queued or running that may still run; "?" when squeue does not answer
  timeout 10 squeue --noheader --format='%i %r' 2> /dev/null | grep -v ' DependencyNeverSatisfied$' ||
    [[ ${PIPESTATUS[0]} -eq 0 ]] || echo "?"
}
print_jobs() {  # one line per job, then the end of each failed job's output
  local job failed=()
  echo "--- the jobs:"
  while read -r job; do
    echo "$job" | grep -o -E '^JobId=[^ ]*|ArrayJobId=[^ ]*|ArrayTaskId=[^ ]*|JobState=[^ ]*|Reason=[^ ]*|ExitCode=[^ ]*' |
      tr '\n' ' '
    echo
    [[ $job =~ JobState=(FAILED|CANCELLED|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL).*StdOut=([^ ]*) ]] &&
      failed+=("${BASH_REMATCH[2]}")
  done < <(timeout 10 scontrol --oneliner show job 2> /dev/null || true)
  for job in "${failed[@]}"; do
    echo "--- $job, its last lines:"
    tail -n 15 "$job" 2> /dev/null || true
  done
}
submit_and_wait() {  # submit_line directory label
  local line=$1 dir=$2 label=$3 merge_job state settled=0 deadline
  timeout 30 sh -c "cd \"\$1\" && $line" sh "$dir" > "$work/submit-$label.out" 2> "$work/submit-$label.err" ||
    { cat "$work/submit-$label.err" >&2; fail "$label: submission failed"; }
  merge_job=$(awk '/^Submitted batch job/ {print $4}' "$work/submit-$label.out")
  [[ $merge_job =~ ^[0-9]+$ ]] || fail "$label: no job id in sbatch's output: $(cat "$work/submit-$label.out")"
  deadline=$((SECONDS + 90))
  while ((SECONDS < deadline)); do
    [[ -z $(pending_jobs) ]] && settled=1 && break
    sleep 0.2
  done
  state=$(timeout 10 scontrol show job "$merge_job" 2> /dev/null | grep -o 'JobState=[A-Z_]*' || true)
  if [[ $settled -eq 0 || $state != JobState=COMPLETED ]]; then
    print_jobs
    print_logs
    [[ $settled -eq 1 ]] || fail "$label: jobs still queued or running after 90 s"
    fail "$label: the merge job $merge_job did not complete (${state:-no JobState}; DependencyNeverSatisfied: a task failed)"
  fi
}

"$clearfog" sweep "$sweep" --jobs 2 --out "$work/local" > /dev/null

out=$work/slurm
"$clearfog" sweep "$sweep" --slurm "$tasks" --out "$out" > "$work/generate.txt"
cat "$work/generate.txt"
grep -qx "#SBATCH --array=0-$((tasks - 1))" "$out/sweep.sbatch" || fail "no --array=0-$((tasks - 1)) in sweep.sbatch"
[[ -x $out/sweep.sbatch && -x $out/merge.sh ]] || fail "the scripts are not executable"
submit=$(tail -n 1 "$work/generate.txt")
[[ $submit == *sbatch* ]] || fail "the last line printed is no sbatch command: $submit"

# Submitted from another directory, as on a login node: the scripts hold absolute paths.
mkdir "$work/login"
submit_and_wait "$submit" "$work/login" first
cmp "$work/local/results.csv" "$out/results.csv" || fail "merged results.csv differs from the local sweep's"
for ((i = 0; i < tasks; i++)); do
  [[ -d $out/shard-$i/points ]] || fail "no shard-$i"
  [[ -s $out/logs/shard-$i.out ]] || fail "task $i wrote no log to $out/logs/shard-$i.out"
done

# Resumable: task 1 lost a point (killed mid-way, say); the same line runs only that point again.
lost=$(find "$out/shard-1/points" -mindepth 1 -maxdepth 1 -printf "%f\n" | sort | head -n 1)
rm "$out/shard-1/points/$lost"
rm "$out/results.csv"
submit_and_wait "$submit" "$work/login" resubmission
per_shard=$(grep -h "^sweep " "$out/logs/shard-1.out" | tail -n 1)
shard1_points=$(find "$out/shard-1/points" -mindepth 1 -maxdepth 1 | wc -l)
[[ $per_shard == *"$shard1_points points ($((shard1_points - 1)) already done)"* ]] ||
  fail "task 1 did not resume: $per_shard"
cmp "$work/local/results.csv" "$out/results.csv" || fail "results.csv differs after the resubmission"

# A directory name with a blank and a quote: the scripts quote every path (and, as no #SBATCH line
# can hold it, leave the task logs to Slurm's default, slurm-%A_%a.out in the submission directory).
odd="$work/odd dir's"
"$clearfog" sweep "$sweep" --slurm "$tasks" --out "$odd" > "$work/generate-odd.txt"
submit=$(tail -n 1 "$work/generate-odd.txt")
mkdir "$work/login-odd"
submit_and_wait "$submit" "$work/login-odd" odd
cmp "$work/local/results.csv" "$odd/results.csv" || fail "results.csv in the odd directory differs"
logs=$(find "$work/login-odd" -name 'slurm-*_*.out' | wc -l)
[[ $logs -eq $tasks ]] || fail "$logs task logs in the submission directory, not $tasks"
echo "PASS: $tasks tasks on a real Slurm, merged results.csv equals the local sweep's, resubmission resumes"
