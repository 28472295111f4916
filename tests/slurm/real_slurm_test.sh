#!/usr/bin/env bash
# Submits a sweep to a real Slurm: munged, slurmctld and slurmd (Debian's munge and slurm-wlm)
# started on this machine as a one-node cluster whose configuration, state and logs live in a
# temporary folder, removed afterwards. scripts/slurm/submit.sh submits the job array of two
# shards and the dependent merge job with sbatch; the merged table must equal one run's.
# Usage: real_slurm_test.sh EMBPRIV_BINARY SOURCE_DIR
# Exit 77 (ctest: skipped) with a message where no Slurm can start: not root (the daemons run as
# root so that no user is needed), or the packages are missing (scripts/setup.sh installs them).
set -euo pipefail
embpriv=$1 source_dir=$2

skip() { echo "SKIPPED: real Slurm test: $*" >&2; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root to start munged, slurmctld and slurmd"
for program in munged slurmctld slurmd sbatch scontrol; do
  command -v "$program" > /dev/null || PATH=$PATH:/usr/sbin command -v "$program" > /dev/null ||
    skip "$program not found (apt-get install munge slurm-wlm; scripts/setup.sh does)"
done
export PATH=$PATH:/usr/sbin

work=$(mktemp -d /tmp/embpriv-slurm.XXXXXX)   # mode 0700, owned by root: munged's checks pass
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  if ((status != 0)); then  # what the daemons said, for the test log
    for log in "$work"/*.log "$work"/results/slurm-*.out; do
      [[ -f $log ]] && { echo "--- $log"; tail -n 20 "$log"; }
    done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Ports free on this machine (a running Slurm keeps 6817/6818).
free_port() {
  local port
  for port in $(seq "$1" $(($1 + 200))); do
    (echo > /dev/tcp/127.0.0.1/"$port") 2> /dev/null || { echo "$port"; return; }
  done
  skip "no free port near $1"
}
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))

# munge: a fresh key, its own socket.
mkdir -p "$work/munge" && chmod 0700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --foreground --force --socket="$socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munged.log" \
  --seed-file="$work/munge/munged.seed" > "$work/munged.stderr.log" 2>&1 &
pids+=($!)

node=$(hostname -s)
cpus=$(nproc)
memory_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
mkdir -p "$work/state" "$work/spool" "$work/results"
cat > "$work/slurm.conf" << EOF
ClusterName=embpriv-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
for _ in $(seq 50); do [[ -S $socket ]] && break; sleep 0.1; done
[[ -S $socket ]] || { echo "munged did not start" >&2; exit 1; }
slurmctld -D -i -f "$SLURM_CONF" > "$work/slurmctld.stderr.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$work/slurmd.stderr.log" 2>&1 &
pids+=($!)

# The node comes up idle within a few seconds.
for _ in $(seq 60); do
  state=$(sinfo -h -N -o %T 2> /dev/null || true)
  [[ $state == idle* ]] && break
  sleep 1
done
[[ $state == idle* ]] || { echo "the Slurm node did not come up (state: '$state')" >&2; exit 1; }
echo "Slurm $(sbatch --version | cut -d' ' -f2) up: node $node, $cpus CPUs, port $ctld_port"

# The submission, as a user would make it: two shards and the merge.
config=$source_dir/configs/ci/perturbation_small.yaml
cd "$work/results"
export EMBPRIV=$embpriv OUT_DIR=$work/results
output=$(bash "$source_dir/scripts/slurm/submit.sh" "$config" 2 -q)
echo "$output"
array_job=$(sed -n 's/.*job array \([0-9]*\).*/\1/p' <<< "$output")
merge_job=$(sed -n 's/.*merge as job \([0-9]*\).*/\1/p' <<< "$output")
[[ -n $array_job && -n $merge_job ]] || { echo "submit.sh printed no job ids" >&2; exit 1; }

# Wait for the merge job (it runs only after both shards succeeded): COMPLETED, or fail on any
# other end state.
job_state() { scontrol show job "$1" 2> /dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '; }
for _ in $(seq 600); do
  merge_state=$(job_state "$merge_job")
  case $merge_state in
    "COMPLETED ") break ;;
    *FAILED* | *CANCELLED* | *TIMEOUT* | *NODE_FAIL* | *OUT_OF_MEMORY*)
      echo "merge job $merge_job ended $merge_state (array: $(job_state "$array_job"))" >&2; exit 1 ;;
  esac
  sleep 1
done
[[ $merge_state == "COMPLETED " ]] || { echo "merge job still '$merge_state' after 10 min" >&2; exit 1; }
[[ $(job_state "$array_job") == "COMPLETED " ]] || { echo "array job: $(job_state "$array_job")" >&2; exit 1; }

# Both tasks ran under Slurm (their logs are the sbatch --output files) and the merge equals one run.
ls slurm-embpriv-sweep-"${array_job}"_1.out slurm-embpriv-sweep-"${array_job}"_2.out slurm-embpriv-merge-"${merge_job}".out > /dev/null
"$embpriv" run "$config" --out "$work/whole.h5" --no-plot -q
h5diff "$work/results/perturbation_small.h5" "$work/whole.h5" /table /table
test -s "$work/results/perturbation_small.cosine.png"
echo "real Slurm: job array $array_job (2 shards) and merge job $merge_job; merged table equals one run"
