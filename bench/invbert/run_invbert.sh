#!/usr/bin/env bash
# InvBert's training (attacks/invbert.h) against the same network in PyTorch eager
# (invbert_peer.py), same sizes, one after the other, for each thread count (bench/README.md).
# Arguments go to both sides (--tokens N --epochs E). Settings: bench/common/common.sh, and
#   OUT (default results/bench_invbert.json), DUMP (default: a temporary folder)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/bench/common/common.sh"
OUT=${OUT:-$ROOT/results/bench_invbert.json}
prepare_bench invbert_bench
bench_and_peer invbert_bench invbert/invbert_peer.py "$@"
finish_lines
