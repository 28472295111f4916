#!/usr/bin/env bash
# The encoder forward pass (models/hf_encoder_model.h) on a random BERT-base-sized model against
# the same forward pass in PyTorch eager (encoder_forward_peer.py) on the same weights and ids,
# for each thread count, with both sides' peak memory (bench/README.md). Arguments go to both
# sides: --batch B --length T (default 8 x 128). Settings: bench/common/common.sh, and
#   OUT (default results/bench_encoder_forward.json), DUMP (default: a temporary folder)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
OUT=${OUT:-$ROOT/results/bench_encoder_forward.json}
prepare_bench encoder_forward_bench
"$BUILD_DIR/encoder_forward_bench" --make "$dump/model" >/dev/null
bench_and_peer encoder_forward_bench encoder_forward/encoder_forward_peer.py --model "$dump/model" "$@"
finish_lines
