#!/usr/bin/env bash
# Benchmarks the five per-vector mechanisms of embpriv against PyTorch eager and against the
# torch.randn floor (bench/README.md). Builds mechanisms_bench, runs it and mechanisms_peer.py
# one after the other on this machine for each thread count; mechanisms_table.py prints the
# table and writes it as JSON. Settings: bench/common/common.sh, and
#   N, D       batch shape                   (default 65536 x 4096: 1 GiB per float32 tensor)
#   IDLE_WAIT  seconds to wait for an idle CPU before each run (default 600; 0: do not wait)
#   OUT        JSON output                    (default <repo>/results/bench_mechanisms.json)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
N=${N:-65536}
D=${D:-4096}
IDLE_WAIT=${IDLE_WAIT:-600}
OUT=${OUT:-$ROOT/results/bench_mechanisms.json}
SPEEDUP_TARGET=5.0       # embpriv must be >= 5x PyTorch eager
FLOOR_TARGET=1.5         # and take <= 1.5x the time of torch.randn(N, D)
build_benches mechanisms_bench

# --- Memory --------------------------------------------------------------------------------
# The peer holds up to ~5 [N, D] float32 tensors at once (input, output, normals, temporaries);
# the C++ bench 3 (input, output, the previous output while it is being released).
tensor_bytes=$((N * D * 4))
need_bytes=$((6 * tensor_bytes))
avail_bytes=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) * 1024))
echo "one [N, D] float32 tensor: $((tensor_bytes >> 20)) MiB; need ~$((need_bytes >> 20)) MiB," \
  "available $((avail_bytes >> 20)) MiB"
if ((avail_bytes < need_bytes)); then
  echo "not enough free memory for N=$N D=$D; lower N" >&2
  exit 1
fi

# --- Idle CPU ------------------------------------------------------------------------------
# Other people compile on this machine: wait (up to IDLE_WAIT s) until under 10% is busy.
wait_idle() {
  local waited=0 busy
  busy=$(cpu_busy)
  while awk -v b="$busy" 'BEGIN { exit !(b > 0.10) }' && ((waited < IDLE_WAIT)); do
    sleep 4
    waited=$((waited + 5))
    busy=$(cpu_busy)
  done
  echo "$busy"
}

# --- Runs ----------------------------------------------------------------------------------
raw=$(mktemp)
trap 'rm -f "$raw" "$raw".*' EXIT
trap 'exit 130' INT TERM
for t in $THREADS; do
  for impl in embpriv pytorch; do
    busy=$(wait_idle)
    echo "threads=$t $impl: CPU busy before the run: $busy" >&2
    if [[ $impl == embpriv ]]; then
      cmd=("$BUILD_DIR/mechanisms_bench" --n "$N" --d "$D" --repeats "$REPEATS" --threads "$t")
    else
      cmd=("$PYTHON" "$BENCH/mechanisms/mechanisms_peer.py" --n "$N" --d "$D" --repeats "$REPEATS" --threads "$t")
    fi
    /usr/bin/time -f "%M" -o "$raw.rss" "${cmd[@]}" | tee "$raw.out" >&2
    rss_kib=$(tail -1 "$raw.rss")
    # Tag every line with the run's peak RSS and the CPU load seen just before it.
    sed "s/}\$/, \"peak_rss_mib\": $((rss_kib / 1024)), \"cpu_busy_before\": $busy}/" \
      "$raw.out" >>"$raw"
  done
done

# --- Table ---------------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
"$PYTHON" "$BENCH/mechanisms/mechanisms_table.py" "$raw" "$OUT" "$SPEEDUP_TARGET" "$FLOOR_TARGET"
