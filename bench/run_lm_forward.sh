#!/usr/bin/env bash
# Language-model forward pass: embpriv's Llama2cModel::forward_embeddings against the same
# computation in PyTorch eager, on stories260K, same ids, one after the other, for each thread
# count (bench/README.md). Arguments go to lm_forward_bench (--tokens N --repeats R ...).
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), OUT (default results/bench_lm_forward.json)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
OUT=${OUT:-$ROOT/results/bench_lm_forward.json}
MODEL=$ROOT/../shared/data/tinyllama/stories260K.bin
cmake --build "$BUILD_DIR" -j2 --target lm_forward_bench >/dev/null
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
mkdir -p "$(dirname "$OUT")"
repeats=3
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [[ ${args[i]} == --repeats ]] && repeats=${args[i + 1]}; done
: > "$OUT.lines"
for t in $THREADS; do
  "$BUILD_DIR/lm_forward_bench" --model "$MODEL" --threads "$t" --dump "$dump" "$@" | tee -a "$OUT.lines"
  /usr/bin/python3 "$ROOT/bench/lm_forward_peer.py" --model "$MODEL" --dump "$dump" --threads "$t" \
    --repeats "$repeats" | tee -a "$OUT.lines"
done
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
echo "wrote $OUT"
