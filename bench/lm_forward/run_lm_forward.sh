#!/usr/bin/env bash
# Language-model forward pass: embpriv's forward_embeddings against the same computation in
# PyTorch eager, same ids, one after the other, for each thread count (bench/README.md), on
# stories260K (llama2.c; lm_forward_peer.py) and on a random ~100M Llama in bf16 as a Hugging
# Face folder (written once by hf_forward_peer.py make; hf_forward_peer.py time), computed in
# float32 and in bf16 (--compute bfloat16, against PyTorch eager in bf16). Arguments go
# to lm_forward_bench for stories260K (--tokens N --repeats R ...). Settings:
# bench/common/common.sh, and
#   OUT (default results/bench_lm_forward.json), DUMP (default: a temporary folder)
#   HF_TOKENS (default 1024; 0 skips the HF model), HF_MODEL (default BUILD_DIR/bench_models/random_llama_100m_bf16)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
OUT=${OUT:-$ROOT/results/bench_lm_forward.json}
MODEL=$ROOT/../shared/data/tinyllama/stories260K.bin
prepare_bench lm_forward_bench
repeats=3
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [[ ${args[i]} == --repeats ]] && repeats=${args[i + 1]}; done
for t in $THREADS; do
  record "$BUILD_DIR/lm_forward_bench" --model "$MODEL" --threads "$t" --dump "$dump" "$@"
  record "$PYTHON" "$BENCH/lm_forward/lm_forward_peer.py" --model "$MODEL" --dump "$dump" --threads "$t" \
    --repeats "$repeats"
done
HF_TOKENS=${HF_TOKENS:-1024}
HF_MODEL=${HF_MODEL:-$BUILD_DIR/bench_models/random_llama_100m_bf16}
if [[ $HF_TOKENS -gt 0 ]]; then
  [[ -f $HF_MODEL/model.safetensors ]] || "$PYTHON" "$BENCH/lm_forward/hf_forward_peer.py" make "$HF_MODEL" >&2
  size=$(stat -c %s "$HF_MODEL/model.safetensors")
  record echo "{\"name\": \"random_llama_100m_bf16\", \"impl\": \"file\", \"file_mib\": $((size / 1048576))}"
  for t in $THREADS; do
    record "$BUILD_DIR/lm_forward_bench" --model "$HF_MODEL" --name random_llama_100m_bf16 --tokens "$HF_TOKENS" \
      --repeats "$repeats" --threads "$t" --dump "$dump"
    record "$PYTHON" "$BENCH/lm_forward/hf_forward_peer.py" time --model "$HF_MODEL" --dump "$dump" --threads "$t" \
      --repeats "$repeats"
  done
  # The same model computed in bf16 (--compute bfloat16: oneDNN's bf16 GEMMs), against PyTorch
  # eager in bf16 with transformers' casts.
  for t in $THREADS; do
    record "$BUILD_DIR/lm_forward_bench" --model "$HF_MODEL" --name random_llama_100m_bf16_in_bf16 --tokens "$HF_TOKENS" \
      --repeats "$repeats" --threads "$t" --dump "$dump" --compute bfloat16
    record "$PYTHON" "$BENCH/lm_forward/hf_forward_peer.py" time --model "$HF_MODEL" --dump "$dump" --threads "$t" \
      --repeats "$repeats" --compute bfloat16 --name random_llama_100m_bf16_in_bf16
  done
fi
finish_lines
