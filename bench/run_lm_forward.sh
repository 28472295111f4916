#!/usr/bin/env bash
# Language-model forward pass: embpriv's forward_embeddings against the same computation in
# PyTorch eager, same ids, one after the other, for each thread count (bench/README.md), on
# stories260K (llama2.c) and on a random ~100M Llama in bf16 as a Hugging Face folder (written
# once by bench/hf_forward_peer.py make). Arguments go to lm_forward_bench for stories260K
# (--tokens N --repeats R ...).
#   BUILD_DIR (default <repo>/build), THREADS (default "1 2"), OUT (default results/bench_lm_forward.json)
#   HF_TOKENS (default 1024; 0 skips the HF model), HF_MODEL (default BUILD_DIR/bench_models/random_llama_100m_bf16)
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
HF_TOKENS=${HF_TOKENS:-1024}
HF_MODEL=${HF_MODEL:-$BUILD_DIR/bench_models/random_llama_100m_bf16}
if [[ $HF_TOKENS -gt 0 ]]; then
  [[ -f $HF_MODEL/model.safetensors ]] || /usr/bin/python3 "$ROOT/bench/hf_forward_peer.py" make "$HF_MODEL" >&2
  size=$(stat -c %s "$HF_MODEL/model.safetensors")
  echo "{\"name\": \"random_llama_100m_bf16\", \"impl\": \"file\", \"file_mib\": $((size / 1048576))}" | tee -a "$OUT.lines"
  for t in $THREADS; do
    "$BUILD_DIR/lm_forward_bench" --model "$HF_MODEL" --name random_llama_100m_bf16 --tokens "$HF_TOKENS" \
      --repeats "$repeats" --threads "$t" --dump "$dump" | tee -a "$OUT.lines"
    /usr/bin/python3 "$ROOT/bench/hf_forward_peer.py" time --model "$HF_MODEL" --dump "$dump" --threads "$t" \
      --repeats "$repeats" | tee -a "$OUT.lines"
  done
fi
/usr/bin/python3 -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
  "$OUT.lines" "$OUT"
echo "wrote $OUT"
