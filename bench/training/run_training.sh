#!/usr/bin/env bash
# The training paths (learned inversion, a PrivateAI client's local training): embpriv's
# LibTorch trainers against the same models in PyTorch eager (training_peer.py), same sizes, one
# after the other, for each thread count (bench/README.md). Arguments go to both sides
# (--tokens N --units U --epochs E). Settings: bench/common/common.sh, and
#   OUT (default results/bench_training.json), DUMP (default: a temporary folder)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
OUT=${OUT:-$ROOT/results/bench_training.json}
prepare_bench training_bench
bench_and_peer training_bench training/training_peer.py "$@"
finish_lines
