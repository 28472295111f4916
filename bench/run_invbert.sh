#!/usr/bin/env bash
# InvBert's training (attacks/invbert.h) against the same network in PyTorch eager
# (bench/invbert_peer.py), same sizes, one after the other, for each thread count (bench/README.md).
# Arguments go to both sides (--tokens N --epochs E).
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), REPEATS (default 3),
#   OUT (default results/bench_invbert.json)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
OUT=${OUT:-$ROOT/results/bench_invbert.json}
cmake --build "$BUILD_DIR" -j2 --target invbert_bench >/dev/null
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
mkdir -p "$(dirname "$OUT")"
: > "$OUT.lines"
# T threads means T cores on both sides: OpenBLAS gets T threads too.
for t in $THREADS; do
  export OPENBLAS_NUM_THREADS=$t
  "$BUILD_DIR/invbert_bench" --threads "$t" --repeats "$REPEATS" --dump "$dump" "$@" | tee -a "$OUT.lines"
  /usr/bin/python3 "$ROOT/bench/invbert_peer.py" --dump "$dump" --threads "$t" --repeats "$REPEATS" "$@" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
echo "wrote $OUT"
