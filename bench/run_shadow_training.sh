#!/usr/bin/env bash
# Shadow-model training (membership inference): embpriv's LogisticRegression::fit against the
# same Newton iterations in PyTorch eager, same data and halves, one after the other, for each
# thread count (bench/README.md). Arguments go to shadow_training_bench (--n N --d D --models M).
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), REPEATS (default 3),
#   OUT (default results/bench_shadow_training.json)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
OUT=${OUT:-$ROOT/results/bench_shadow_training.json}
cmake --build "$BUILD_DIR" -j2 --target shadow_training_bench >/dev/null
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
mkdir -p "$(dirname "$OUT")"
n=2000 d=100
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [[ ${args[i]} == --n ]] && n=${args[i + 1]}
  [[ ${args[i]} == --d ]] && d=${args[i + 1]}
done
: > "$OUT.lines"
# T threads means T cores on both sides: OpenBLAS gets T threads too (embpriv's fits run their
# GEMMs in the calling thread anyway, platform/blas_threads.h; PyTorch would otherwise give its
# GEMMs every core even at 1 thread).
for t in $THREADS; do
  export OPENBLAS_NUM_THREADS=$t
  "$BUILD_DIR/shadow_training_bench" --threads "$t" --repeats "$REPEATS" --dump "$dump" "$@" | tee -a "$OUT.lines"
  /usr/bin/python3 "$ROOT/bench/shadow_training_peer.py" --dump "$dump" --n "$n" --d "$d" --threads "$t" \
    --repeats "$REPEATS" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
echo "wrote $OUT"
