#!/usr/bin/env bash
# Shadow-model training (membership inference): embpriv's LogisticRegression::fit against the
# same Newton iterations in PyTorch eager (shadow_training_peer.py), same data and halves, one
# after the other, for each thread count (bench/README.md). Arguments go to both sides
# (--n N --d D --models M). Settings: bench/common/common.sh, and
#   OUT (default results/bench_shadow_training.json), DUMP (default: a temporary folder)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
OUT=${OUT:-$ROOT/results/bench_shadow_training.json}
prepare_bench shadow_training_bench
bench_and_peer shadow_training_bench shadow_training/shadow_training_peer.py "$@"
finish_lines
