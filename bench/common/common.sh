# Sourced by the run scripts of bench/ (bench/<name>/run_<name>.sh) after they set ROOT, the
# repository root. Gives the settings they share (each may be set in the environment; a script
# may set its own default before sourcing this file) and the steps they share.
#   BUILD_DIR  build directory (default <repo>/build)
#   THREADS    thread counts to measure, one run of each side per count (default "1 2")
#   REPEATS    timed runs after one warm-up; the best is kept (default 3)
#   NO_BUILD   1: run the binaries in BUILD_DIR as they are (bench/run_all.sh builds them all first)
#   PYTHON     the interpreter of the Python peers (default: the first of python3 on PATH and
#              /usr/bin/python3 that imports numpy and torch; the pyenv python3 first on PATH
#              here has neither, Debian's has both, and faiss)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
THREADS=${THREADS:-"1 2"}
REPEATS=${REPEATS:-3}
BENCH=$ROOT/bench
if [[ -z ${PYTHON:-} ]]; then
  for candidate in python3 /usr/bin/python3; do
    if "$candidate" -c 'import numpy, torch' 2>/dev/null; then PYTHON=$candidate; break; fi
  done
  [[ -n ${PYTHON:-} ]] || { echo "bench: no python3 with numpy and torch (scripts/setup.sh --bench)" >&2; exit 1; }
  export PYTHON  # the later run scripts of bench/run_all.sh probe no more
fi

# Builds the named targets in BUILD_DIR, unless NO_BUILD=1.
build_benches() {
  [[ ${NO_BUILD:-0} == 1 ]] || cmake --build "$BUILD_DIR" -j2 --target "$@" >/dev/null
}

# The fraction of all CPUs busy over one second, from /proc/stat (other people build and test
# on these machines; each run records what it saw).
cpu_busy() {
  local a b
  a=($(head -1 /proc/stat))
  sleep 1
  b=($(head -1 /proc/stat))
  local idle=$(((b[4] + b[5]) - (a[4] + a[5]))) total=0 i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  echo "$idle $total" | awk '{ printf "%.2f", ($2 > 0) ? 1 - $1 / $2 : 0 }'
}

# Sets `dump`, the folder a bench writes what its peer reads: $DUMP when given (kept, so that a
# later PEER_ONLY=1 run finds it), else a temporary folder removed at exit.
use_dump_folder() {
  if [[ -n ${DUMP:-} ]]; then
    dump=$DUMP
    mkdir -p "$dump"
  else
    dump=$(mktemp -d)
    trap 'rm -rf "$dump"' EXIT
  fi
}

# Builds the bench target $1, sets `dump` (use_dump_folder) and starts $OUT.lines (start_lines).
prepare_bench() {
  build_benches "$1"
  use_dump_folder
  start_lines
}

# Starts $OUT.lines, the JSON lines of this run kept as they come (the JSON file and the table
# are made from them at the end).
start_lines() {
  mkdir -p "$(dirname "$OUT")"
  : > "$OUT.lines"
}

# Runs a command (a bench or a peer), shows its JSON lines and appends them to $OUT.lines.
record() {
  "$@" | tee -a "$OUT.lines"
}

# The bench target $1 and its peer $2 (a script under bench/), one after the other, for each
# thread count T of THREADS, both given --threads T --repeats REPEATS --dump DUMP and the
# remaining arguments; their JSON lines are recorded. T threads means T cores on both sides:
# OpenBLAS gets T threads too (embpriv runs its small GEMMs in the calling thread anyway,
# platform/blas_threads.h; PyTorch would otherwise give its GEMMs every core even at 1 thread).
bench_and_peer() {
  local target=$1 peer=$2 t
  shift 2
  for t in $THREADS; do
    export OPENBLAS_NUM_THREADS=$t
    record "$BUILD_DIR/$target" --threads "$t" --repeats "$REPEATS" --dump "$dump" "$@"
    record "$PYTHON" "$BENCH/$peer" --threads "$t" --repeats "$REPEATS" --dump "$dump" "$@"
  done
}

# Writes $OUT, one JSON list of the lines of $OUT.lines.
finish_lines() {
  "$PYTHON" -c 'import json, sys; json.dump([json.loads(l) for l in open(sys.argv[1]) if l.strip()], open(sys.argv[2], "w"), indent=1)' \
    "$OUT.lines" "$OUT"
  echo "wrote $OUT"
}
