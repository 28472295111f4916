#!/usr/bin/env bash
# Downloads the .deb files of scripts/device/debs.txt, and of every package they pull in that a
# bare machine lacks, into a folder, for a machine with no Debian -dev packages and no network
# (docs/gpu.md): scripts/device/check.sh unpacks them with `dpkg -x` into a prefix and builds
# against it (-DEMBPRIV_DEPS_PREFIX), with no root install and no change to /.
#
# "A bare machine" is one with only the C and C++ toolchain (gcc, g++, make, libc6-dev: libc6,
# libstdc++6, libgomp1, zlib, libssl3, ... the libraries every compiler machine has, Debian's and
# Ubuntu's alike): apt resolves the list against a dpkg status holding only those and their
# dependencies, taken from this machine's, so the
# choice among alternatives is apt's own, as on an install. Everything else the list pulls in
# comes along, also what a Debian 12 base has but Ubuntu 22.04 / 24.04 lack or name otherwise
# (libunistring2 under libpsl5 under libcurl, which HDF5 links for its read-only S3 driver): a
# Debian 12 base was the reference before, and the prefix failed to load on Ubuntu 24.04.
# check.sh then puts on LD_LIBRARY_PATH only the prefix's libraries that the machine lacks, so
# none of these shadows one the machine has.
# Usage: scripts/device/fetch_debs.sh [FOLDER | --list]   (default .cache/device-debs; --list prints
# the packages and downloads nothing); runs on Debian 12.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$root/.cache/device-debs}
[[ $out == --list ]] && out=""
mapfile -t wanted < <(grep -v '^\s*\(#\|$\)' "$root/scripts/device/debs.txt")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" 2>/dev/null | grep '^[a-z0-9]' | sort -u
}
# The bare machine: the toolchain, closed under dependencies (not build-essential: its dpkg-dev
# pulls in perl's and libidn2's dependencies, libunistring2 among them).
closure gcc g++ make libc6-dev > "$work/base"
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
if [[ ${1:-} == --list ]]; then  # what would be fetched, nothing downloaded
  apt-get -s install --no-install-recommends -o Dir::State::status="$work/status" "${wanted[@]}" | awk '/^Inst /{print $2}'
  exit 0
fi
mapfile -t packages < <(apt-get -s install --no-install-recommends -o Dir::State::status="$work/status" \
                          "${wanted[@]}" | awk '/^Inst /{print $2}')
[[ ${#packages[@]} -gt 0 ]] || { echo "fetch_debs: apt resolved nothing for: ${wanted[*]}" >&2; exit 1; }

mkdir -p "$out"
rm -f "$out"/*.deb
(cd "$out" && apt-get download -q "${packages[@]}" >/dev/null 2>&1) ||
  (cd "$out" && apt-get download "${packages[@]}")   # again, to show apt's error
size=$(du -cb "$out"/*.deb | tail -1 | cut -f1)
echo "fetch_debs: ${#packages[@]} packages, $(awk -v s="$size" 'BEGIN{printf "%.1f", s/1048576}') MiB in $out"
