#!/usr/bin/env bash
# Downloads the .deb files of scripts/device/debs.txt, and of every package they pull in that a
# bare machine lacks, into a folder, for a machine with no Debian -dev packages and no network
# (docs/gpu.md): scripts/device/check.sh unpacks them with `dpkg -x` into a prefix and builds
# against it (-DEMBPRIV_DEPS_PREFIX), with no root install and no change to /.
#
# "A bare machine" is one with only Debian's required and important packages and build-essential:
# apt resolves the list against a dpkg status holding only those (and their dependencies) taken
# from this machine's, so the choice among alternatives is apt's own, as on an install.
# Usage: scripts/device/fetch_debs.sh [FOLDER]   (default .cache/device-debs); runs on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/.cache/device-debs}
mapfile -t wanted < <(grep -v '^\s*\(#\|$\)' "$root/scripts/device/debs.txt")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" 2>/dev/null | grep '^[a-z0-9]' | sort -u
}
# The bare machine: required + important + build-essential, closed under dependencies.
mapfile -t base < <({ apt-cache dumpavail | awk '/^Package:/{p=$2} /^Priority: (required|important)/{print p}';
                      echo build-essential; } | sort -u)
closure "${base[@]}" > "$work/base"
python3 - "$work/base" /var/lib/dpkg/status "$work/status" <<'PY'
import sys
base = set(open(sys.argv[1]).read().split())
kept = []
for stanza in open(sys.argv[2]).read().split("\n\n"):
    name = next((l[9:].strip() for l in stanza.splitlines() if l.startswith("Package: ")), None)
    if name in base and "install ok installed" in stanza:
        kept.append(stanza.strip())
open(sys.argv[3], "w").write("\n\n".join(kept) + "\n")
PY
mapfile -t packages < <(apt-get -s install --no-install-recommends -o Dir::State::status="$work/status" \
                          "${wanted[@]}" | awk '/^Inst /{print $2}')
[[ ${#packages[@]} -gt 0 ]] || { echo "fetch_debs: apt resolved nothing for: ${wanted[*]}" >&2; exit 1; }

mkdir -p "$out"
rm -f "$out"/*.deb
(cd "$out" && apt-get download -q "${packages[@]}" >/dev/null 2>&1) ||
  (cd "$out" && apt-get download "${packages[@]}")   # again, to show apt's error
size=$(du -cb "$out"/*.deb | tail -1 | cut -f1)
echo "fetch_debs: ${#packages[@]} packages, $(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}') MiB in $out"
