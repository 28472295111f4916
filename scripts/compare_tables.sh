#!/usr/bin/env bash
# Checks that two embpriv binaries give bit-identical results: runs each config with both (one
# thread, no plots) and compares /table and /curves with h5diff, which compares every value
# exactly. Used to show that a refactoring changes no number.
# Usage: scripts/compare_tables.sh OLD_EMBPRIV NEW_EMBPRIV CONFIG... [-- OVERRIDE...]
# OLD_EMBPRIV may also be a folder of results files made earlier, NAME.h5 for configs/.../NAME.yaml.
# EXCLUDE_COLUMNS="a b" leaves /table columns out of the comparison (e.g. cluster_seconds, a
# wall time that obfuslm tables held in /table before it moved to /timing/cluster).
# Exits 0 iff every config gives identical /table and /curves; prints one line per config.
set -euo pipefail
old=$1 new=$2
shift 2
configs=() overrides=()
while [[ $# -gt 0 && $1 != "--" ]]; do configs+=("$1"); shift; done
[[ $# -gt 0 ]] && { shift; overrides=("$@"); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exclude=()
# --exclude-path is relative to the group compared.
for column in ${EXCLUDE_COLUMNS:-}; do exclude+=(--exclude-path "/$column"); done
status=0
for config in "${configs[@]}"; do
  name=$(basename "$config" .yaml)
  if [[ -d $old ]]; then cp "$old/$name.h5" "$work/$name.old.h5"; fi
  for side in old new; do
    binary=${!side}
    [[ -d $binary ]] && continue
    if ! "$binary" -q run "$config" "${overrides[@]}" --threads 1 --no-plot --out "$work/$name.$side.h5" \
        > "$work/$name.$side.log" 2>&1; then
      echo "FAILED to run: $side $config (see below)"; cat "$work/$name.$side.log"; status=1; continue 2
    fi
  done
  differences=""
  for group in /table /curves; do
    if h5ls "$work/$name.old.h5/${group#/}" > /dev/null 2>&1 || h5ls "$work/$name.new.h5/${group#/}" > /dev/null 2>&1; then
      h5diff -q "${exclude[@]}" "$work/$name.old.h5" "$work/$name.new.h5" "$group" "$group" > /dev/null 2>&1 \
        || differences+=" $group"
    fi
  done
  if [[ -z $differences ]]; then
    echo "identical: $config"
  else
    echo "DIFFERENT:$differences: $config"
    h5diff -r "${exclude[@]}" "$work/$name.old.h5" "$work/$name.new.h5" /table /table 2>&1 | head -20 || true
    status=1
  fi
done
exit $status
