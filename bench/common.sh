# Sourced by the bench scripts.

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
