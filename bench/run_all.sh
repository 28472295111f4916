#!/usr/bin/env bash
# `make bench`: every benchmark of bench/ on this machine, each hot path of embpriv against its
# peer measured in the same script on the same OpenBLAS kernel, then one table (bench/README.md).
#
#   BENCH_SIZE  quick (default: about 10 minutes) | full (the sizes bench/README.md reports)
#   BUILD_DIR   build directory (default <repo>/build)
#   OUTDIR      where the JSON of each benchmark goes (default <repo>/results/bench)
#
# The kernel: embpriv picks its OpenBLAS kernel at start-up (platform/blas_kernel.h; `embpriv
# system` shows it). Every program here, embpriv's benches and the Python peers alike, runs with
# OPENBLAS_CORETYPE set to that kernel, so a ratio never compares two kernels. When OpenBLAS
# on its own would choose another kernel ("as installed"), the GEMM-bound peers (faiss, numpy)
# run a second time without the variable, and the table shows both.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/common/common.sh"  # BUILD_DIR, PYTHON (Debian's numpy, torch and faiss)
SIZE=${BENCH_SIZE:-quick}
OUTDIR=${OUTDIR:-$ROOT/results/bench}
case $SIZE in
  quick | full) ;;
  *) echo "BENCH_SIZE must be quick or full, got '$SIZE'" >&2; exit 2 ;;
esac
mkdir -p "$OUTDIR"
build_benches embpriv knn_bench embed_cluster_bench mechanisms_bench lm_forward_bench shadow_training_bench \
  training_bench invbert_bench encoder_forward_bench pld_accountant_bench
export NO_BUILD=1  # the run scripts below use these binaries

# --- The machine, the kernel, the SGEMM yardstick --------------------------------------------
unset OPENBLAS_CORETYPE EMBPRIV_BLAS_KERNEL
"$BUILD_DIR/embpriv" system --gemm-size 2048 | tee "$OUTDIR/system.txt"
kernel=$(sed -n 's/^  kernel:  \([^,]*\),.*/\1/p' "$OUTDIR/system.txt")
installed=$("$PYTHON" -c 'import ctypes; l = ctypes.CDLL("libopenblas.so.0"); l.openblas_get_corename.restype = ctypes.c_char_p; print(l.openblas_get_corename().decode())')
if [[ -z $kernel ]]; then
  echo "embpriv does not run on OpenBLAS (see above): the peers run as installed" >&2
else
  export OPENBLAS_CORETYPE=$kernel
fi
echo "kernel: embpriv and the peers $kernel; OpenBLAS as installed: $installed" | tee "$OUTDIR/kernels.txt"

# --- The benchmarks --------------------------------------------------------------------------
if [[ $SIZE == quick ]]; then
  knn=(QUERIES=2000 REPEATS=1 THREADS=2)
  cluster=(CASES="glove5k random30k_d768" REPEATS=1 THREADS=2)
  mechanisms=(N=8192 D=4096 REPEATS=2 THREADS="1 2" IDLE_WAIT=0)
  lm=(--tokens 2048 --repeats 2)
  hf_tokens=1024
  shadows=(--n 2000 --d 100 --models 8)
  training=(--tokens 16384 --units 1000 --epochs 1)
  invbert=(--tokens 8192 --epochs 1)
else
  knn=()
  cluster=()
  mechanisms=()
  lm=(--tokens 16384 --repeats 3)
  hf_tokens=4096
  shadows=(--n 4000 --d 768 --models 16)
  training=(--tokens 65536 --units 4000 --epochs 2)
  invbert=(--tokens 32768 --epochs 2)
fi
dumps=$(mktemp -d)
trap 'rm -rf "$dumps"' EXIT
env "${knn[@]}" BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/knn.json" DUMP="$dumps/knn" bash "$BENCH/knn/run_knn.sh"
env "${cluster[@]}" BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/embed_cluster.json" DUMP="$dumps/cluster" \
  bash "$BENCH/embed_cluster/run_embed_cluster.sh"
env "${mechanisms[@]}" BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/mechanisms.json" bash "$BENCH/mechanisms/run_mechanisms.sh"
HF_TOKENS=$hf_tokens BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/lm_forward.json" bash "$BENCH/lm_forward/run_lm_forward.sh" "${lm[@]}"
BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/shadow_training.json" bash "$BENCH/shadow_training/run_shadow_training.sh" "${shadows[@]}"
BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/training.json" bash "$BENCH/training/run_training.sh" "${training[@]}"
BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/invbert.json" bash "$BENCH/invbert/run_invbert.sh" "${invbert[@]}"
REPEATS=2 BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/encoder_forward.json" bash "$BENCH/encoder_forward/run_encoder_forward.sh"
# The PLD accountant next to the RDP accountant, same cases, same run (docs/accounting.md).
"$BUILD_DIR/pld_accountant_bench" --repeats 3 --json "$OUTDIR/pld_accountant.json.lines" | tee "$OUTDIR/pld_accountant.txt"

# --- The GEMM-bound peers as installed, when that is another kernel ---------------------------
rm -f "$OUTDIR/knn_installed.json.lines" "$OUTDIR/embed_cluster_installed.json.lines"
if [[ -n $kernel && $installed != "$kernel" ]]; then
  env -u OPENBLAS_CORETYPE "${knn[@]}" PEER_ONLY=1 BUILD_DIR="$BUILD_DIR" OUT="$OUTDIR/knn_installed.json" \
    DUMP="$dumps/knn" bash "$BENCH/knn/run_knn.sh" >/dev/null
  env -u OPENBLAS_CORETYPE "${cluster[@]}" PEER_ONLY=1 BUILD_DIR="$BUILD_DIR" \
    OUT="$OUTDIR/embed_cluster_installed.json" DUMP="$dumps/cluster" bash "$BENCH/embed_cluster/run_embed_cluster.sh" >/dev/null
fi

# --- One table -------------------------------------------------------------------------------
"$PYTHON" "$BENCH/summary_table.py" "$OUTDIR" | tee "$OUTDIR/summary.txt"
