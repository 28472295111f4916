#!/usr/bin/env bash
# Installs every Debian package embpriv needs to build, test, benchmark and plot.
# Idempotent: prints nothing and touches nothing when all packages are present.
# Usage: scripts/setup.sh [--bench]   (--bench also installs the Python peers of bench/)
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  libtorch-dev libopenblas0-pthread   # OpenBLAS is mandatory: reference BLAS is ~50x slower (GUIDE.md, sec. 6)
  libeigen3-dev libboost-math-dev libhdf5-dev hdf5-tools libyaml-cpp-dev
  catch2 libcli11-dev nlohmann-json3-dev
  gnuplot-nox
  # notebooks/ (executed by the tests): Debian's Python, Jupyter's nbconvert and kernel
  jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib python3-h5py python3-numpy
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3-torch)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
