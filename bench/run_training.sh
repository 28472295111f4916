#!/usr/bin/env bash
# The training paths (learned inversion, a PrivateAI client's local training): embpriv's
# LibTorch trainers against the same models in PyTorch eager, same sizes, one after the other,
# for each thread count (bench/README.md). Arguments go to both sides (--tokens N --units U
# --epochs E).
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), REPEATS (default 3),
#   OUT (default results/bench_training.json)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
OUT=${OUT:-$ROOT/results/bench_training.json}
cmake --build "$BUILD_DIR" -j2 --target training_bench >/dev/null
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
mkdir -p "$(dirname "$OUT")"
: > "$OUT.lines"
# T threads means T cores on both sides: OpenBLAS gets T threads too (embpriv's trainers run
# their GEMMs in the calling thread anyway, platform/blas_threads.h; PyTorch would otherwise give
# its GEMMs every core even at 1 thread).
for t in $THREADS; do
  export OPENBLAS_NUM_THREADS=$t
  "$BUILD_DIR/training_bench" --threads "$t" --repeats "$REPEATS" --dump "$dump" "$@" | tee -a "$OUT.lines"
  /usr/bin/python3 "$ROOT/bench/training_peer.py" --dump "$dump" --threads "$t" --repeats "$REPEATS" "$@" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
echo "wrote $OUT"
