#!/usr/bin/env bash
# Rewrites the key tables of docs/experiments.md from the declarations: the text between
# <!-- keys:NAME --> and <!-- /keys:NAME --> becomes the output of `embpriv keys NAME --markdown`
# (NAME: an experiment type, or common). tests/apps/keys_command_test.cpp fails when they drift.
# Usage: scripts/update_key_docs.sh [BUILD_DIR]   (default: build)
set -euo pipefail

cd "$(dirname "$0")/.."
binary="${1:-build}/embpriv"
doc=docs/experiments.md
[[ -x "$binary" ]] || { echo "update_key_docs: no $binary (build first, or pass the build folder)" >&2; exit 2; }

tables=$(mktemp -d)
trap 'rm -rf "$tables"' EXIT
for name in $(sed -n 's/^<!-- keys:\([a-z_]*\) -->$/\1/p' "$doc"); do
  "$binary" keys "$name" --markdown > "$tables/$name"
done
awk -v dir="$tables" '
  /^<!-- keys:[a-z_]+ -->$/ { print; name = $0; sub(/^<!-- keys:/, "", name); sub(/ -->$/, "", name);
                              while ((getline line < (dir "/" name)) > 0) print line; skipping = 1; next }
  /^<!-- \/keys:[a-z_]+ -->$/ { skipping = 0 }
  !skipping { print }
' "$doc" > "$tables/doc.md"
mv "$tables/doc.md" "$doc"
echo "update_key_docs: $doc"
