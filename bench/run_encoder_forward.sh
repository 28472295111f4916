#!/usr/bin/env bash
# The encoder forward pass (models/hf_encoder_model.h) on a random BERT-base-sized model against
# the same forward pass in PyTorch eager (bench/encoder_forward_peer.py) on the same weights and
# ids, for each thread count, with both sides' peak memory (bench/README.md).
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), REPEATS (default 3),
#   OUT (default results/bench_encoder_forward.json); arguments: --batch B --length T (8 x 128)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
OUT=${OUT:-$ROOT/results/bench_encoder_forward.json}
cmake --build "$BUILD_DIR" -j2 --target encoder_forward_bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$OUT")"
"$BUILD_DIR/encoder_forward_bench" --make "$work/model" >/dev/null
: > "$OUT.lines"
for t in $THREADS; do
  export OPENBLAS_NUM_THREADS=$t
  "$BUILD_DIR/encoder_forward_bench" --model "$work/model" --threads "$t" --repeats "$REPEATS" --dump "$work" "$@" | tee -a "$OUT.lines"
  /usr/bin/python3 "$ROOT/bench/encoder_forward_peer.py" --model "$work/model" --dump "$work" --threads "$t" \
    --repeats "$REPEATS" "$@" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
echo "wrote $OUT"
