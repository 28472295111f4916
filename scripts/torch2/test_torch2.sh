#!/usr/bin/env bash
# `make test-torch2`: embpriv's second test leg, on the CPU, against LibTorch 2.6 (docs/gpu.md,
# "LibTorch 2.x"). A Debian 13 (trixie) chroot made with `debootstrap --variant=minbase` holds
# trixie's libtorch-dev 2.6 and python3-torch 2.6, GCC 14, Catch2 3, yaml-cpp 0.8, HDF5 1.14 and
# pybind11 2.13; in it this script
#   1. configures and builds the library, the tests and the Python module (no benches) from the
#      checkout, bind-mounted read-only, into a build folder inside the chroot;
#   2. runs the Catch2 tests and the other ctest tests (the Python ones are step 3);
#   3. installs the module with pip into a venv over Debian's torch (--system-site-packages; the
#      module the build compiled, EMBPRIV_BUILD_DIR) and runs tests/python with that venv's python;
#   4. unpacks the .deb prefix of scripts/device/fetch_debs.sh (Debian 12's packages, fetched on
#      this host) in the chroot, a base without libunistring2 and with yaml-cpp 0.8 as Ubuntu
#      24.04 is, and checks that with check.sh's LD_LIBRARY_PATH folder every library of the
#      prefix's libhdf5 and libyaml-cpp is found (docs/gpu.md).
# The chroot lives in a fixed place outside the checkout (EMBPRIV_TORCH2_ROOT, default
# /var/cache/embpriv/trixie) with its own ccache, so that a second run only compiles what changed;
# on a fresh machine the script makes it from nothing (debootstrap, about 2.5 GB). It runs as
# root (debootstrap, chroot, mounts) and touches nothing of the host outside that folder.
#
# Usage: scripts/torch2/test_torch2.sh [--build-only] [--no-python] [--jobs N] [--fresh] [--deadline S]
#   --build-only   steps 1-2 only (the Catch2 and ctest tests, without the Python module's tests)
#   --deadline S   stop the build or the tests once S seconds have passed, and exit 3 ("not
#                  finished"; .ci/run gives the leg what is left of CI's time); the chroot and its
#                  ccache stay, so the next run goes further
#   --no-python    no Python module at all (EMBPRIV_PYTHON=OFF, no step 3)
#   --fresh        remove the chroot (and its ccache) first: the cold run
# Environment: EMBPRIV_TORCH2_ROOT (the chroot), EMBPRIV_TORCH2_MIRROR (a Debian mirror URL for
# debootstrap and apt; default: debootstrap's own), EMBPRIV_DATA_DIR (the shared data folder;
# default ../shared/data beside the checkout).
set -euo pipefail
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
root=${EMBPRIV_TORCH2_ROOT:-/var/cache/embpriv/trixie}
mirror=${EMBPRIV_TORCH2_MIRROR:-}
jobs=$(nproc) build_only=0 python=1 fresh=0 deadline=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-only) build_only=1; shift ;;
    --no-python) python=0; shift ;;
    --fresh) fresh=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-torch2: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
if [[ $(id -u) -ne 0 ]]; then
  echo "test-torch2: needs root (debootstrap, chroot and bind mounts); run it with sudo" >&2
  exit 2
fi
data_dir=${EMBPRIV_DATA_DIR:-$source_dir/../shared/data}
if [[ ! -f $data_dir/README.md ]]; then
  echo "test-torch2: no shared data folder at $data_dir (EMBPRIV_DATA_DIR=/path/to/shared/data)" >&2
  exit 2
fi
data_dir=$(cd "$data_dir" && pwd)

# What the chroot holds: scripts/setup.sh's packages as trixie names them (libtorch-dev and
# python3-torch are 2.6 there), without the Slurm daemons (the real-cluster test skips without
# them) and the benches' peers.
packages=(
  build-essential cmake ccache pkg-config ca-certificates
  libtorch-dev libopenblas0-pthread
  libboost-math-dev libhdf5-dev hdf5-tools libyaml-cpp-dev
  catch2 libcli11-dev nlohmann-json3-dev
  gnuplot-nox
  jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib python3-h5py python3-numpy
  python3-scipy python3-mpmath
  python3-torch pybind11-dev python3-pytest python3-yaml
  python3-venv python3-pip
  # the tokenizer tests' JavaScript references (the npm data itself is the checkout's .cache/npm)
  nodejs
)

mkdir -p "$(dirname "$root")"
exec > >(tee "$root.last.log") 2>&1  # the last run's output (.ci/run reads it)
exec 9> "$root.lock"
flock -n 9 || { echo "test-torch2: waiting for another run on $root" >&2; flock 9; }

t0=$SECONDS
say() { printf '== test-torch2 [%4ds] %s\n' "$((SECONDS - t0))" "$*"; }

mounts=()
unmount_all() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
  mounts=()
}
trap unmount_all EXIT
bind() {  # bind SOURCE TARGET [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounts+=("$2")
  if [[ ${3:-} == ro ]]; then mount -o remount,bind,ro "$2"; fi
}

if [[ $fresh -eq 1 && -d $root ]]; then
  say "removing $root (--fresh)"
  rm -rf --one-file-system "$root"
fi

# 1. The chroot: debootstrap once, the package list again whenever it changes.
if [[ ! -f $root/.embpriv-bootstrapped ]]; then
  command -v debootstrap >/dev/null || { say "installing debootstrap"; apt-get install -y -qq debootstrap >/dev/null; }
  say "debootstrap --variant=minbase trixie $root"
  rm -rf --one-file-system "$root"
  debootstrap --variant=minbase trixie "$root" ${mirror:+"$mirror"} > "$root.debootstrap.log" 2>&1 \
    || { tail -n 30 "$root.debootstrap.log"; echo "test-torch2: debootstrap failed (log: $root.debootstrap.log)" >&2; exit 1; }
  touch "$root/.embpriv-bootstrapped"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/proc" "$root/dev"
mount -t proc proc "$root/proc"; mounts+=("$root/proc")
bind /dev "$root/dev"
if [[ -d /dev/shm ]]; then bind /dev/shm "$root/dev/shm"; fi
if [[ -d /dev/pts ]]; then bind /dev/pts "$root/dev/pts"; fi
# The chroot's clean environment: nothing of the host's PATH, PYTHONPATH or LD_LIBRARY_PATH. An
# array, not only a function, so that `timeout` (which runs programs, not shell functions) can run it.
in_root_command=(chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
  DEBIAN_FRONTEND=noninteractive PYTHONDONTWRITEBYTECODE=1 CCACHE_DIR=/var/cache/ccache)
in_root() { "${in_root_command[@]}" "$@"; }
# timed_in_root COMMAND...: in_root COMMAND with what is left before --deadline (none: no limit);
# exit 124 when the deadline stopped it.
timed_in_root() {
  if [[ $deadline -gt 0 ]]; then
    local left=$((deadline - SECONDS))
    (( left > 0 )) || return 124
    timeout --kill-after=10 "$left" "${in_root_command[@]}" "$@"
  else
    in_root "$@"
  fi
}
unfinished() {
  say "not finished: --deadline $deadline s reached during $1 (the chroot and its ccache stay in $root)"
  exit 3
}
wanted=$(printf '%s\n' "${packages[@]}")
if [[ $(cat "$root/.embpriv-packages" 2>/dev/null) != "$wanted" ]]; then
  say "apt-get install ${#packages[@]} packages"
  in_root apt-get update -qq
  in_root apt-get install -y -qq --no-install-recommends "${packages[@]}" > "$root.apt.log" 2>&1 \
    || { tail -n 30 "$root.apt.log"; echo "test-torch2: apt-get install failed (log: $root.apt.log)" >&2; exit 1; }
  in_root apt-get clean
  echo "$wanted" > "$root/.embpriv-packages"
fi
in_root sh -c 'dpkg-query -W -f "\${Package} \${Version}\n" libtorch-dev python3-torch catch2 libhdf5-dev libyaml-cpp-dev pybind11-dev g++ cmake python3' \
  | sed 's/^/   /'

# 2. The checkout (read-only: a test that writes into the source folder fails here) and the data.
bind "$source_dir" "$root/src/embpriv" ro
bind "$data_dir" "$root/src/shared/data" ro
mkdir -p "$root/var/cache/ccache"
in_root ccache --max-size=5G >/dev/null
in_root ccache --zero-stats >/dev/null

build=/build/embpriv
mkdir -p "$root$build"
say "configure (LibTorch 2.6, Catch2 3, HDF5 1.14)"
module=ON
[[ $python -eq 0 ]] && module=OFF
in_root cmake -S /src/embpriv -B $build -DCMAKE_BUILD_TYPE=Release -DEMBPRIV_TESTS=ON -DEMBPRIV_BENCH=OFF \
  -DEMBPRIV_PYTHON=$module -DEMBPRIV_TORCH_PYTHON=python3 -DEMBPRIV_DATA_DIR=/src/shared/data \
  > "$root$build.configure.log" 2>&1 || { cat "$root$build.configure.log"; exit 1; }
grep -E '^-- embpriv:' "$root$build.configure.log" | sed 's/^/   /'
say "build (-j$jobs)"
timed_in_root cmake --build $build -j"$jobs" > "$root$build.build.log" 2>&1 \
  || { [[ $? -eq 124 ]] && unfinished "the build"; { grep -E -B2 -A12 'error:|Error [0-9]' "$root$build.build.log" || tail -n 30 "$root$build.build.log"; } | head -n 120; echo "test-torch2: build failed (log: $root$build.build.log)" >&2; exit 1; }
in_root ccache --show-stats 2>/dev/null | grep -E 'Hits|Misses|hit rate' | sed 's/^/   ccache: /' || true

status=0
say "ctest (every test but tests/python, which step 3 runs from the installed module)"
ctest_status=0
timed_in_root sh -c "cd $build && ctest --output-on-failure --timeout 900 -j2 -E '^python_'" > "$root$build.ctest.log" 2>&1 || ctest_status=$?
[[ $ctest_status -eq 124 ]] && { tail -n 5 "$root$build.ctest.log"; unfinished "ctest"; }
[[ $ctest_status -eq 0 ]] || status=1
tail -n 25 "$root$build.ctest.log" | grep -v '^$' | sed 's/^/   /'
[[ $status -eq 0 ]] || grep -E '\*\*\*Failed|Exception|Timeout|SIGSEGV' "$root$build.ctest.log" | head -n 30 | sed 's/^/   /'

# 3. pip install into a venv over Debian's torch 2.6, and tests/python run by the venv's python.
if [[ $python -eq 1 && $build_only -eq 0 ]]; then
  say "pip install into a venv over Debian's torch, then tests/python"
  venv=/build/venv
  in_root rm -rf $venv
  in_root python3 -m venv --system-site-packages $venv
  if in_root sh -c "cd /tmp && EMBPRIV_BUILD_DIR=$build PIP_NO_INDEX=1 $venv/bin/python -m pip install -q --no-deps --no-build-isolation /src/embpriv" \
       > "$root/build/pip.log" 2>&1; then
    in_root sh -c "cd /tmp && EMBPRIV_BINARY=$build/embpriv EMBPRIV_TEST_TMP=$build/test-results/python-venv \
      $venv/bin/python -c 'import embpriv, torch; print(\"   embpriv\", embpriv.__file__, \"beside torch\", torch.__version__)' && \
      cd /src/embpriv && EMBPRIV_BINARY=$build/embpriv EMBPRIV_TEST_TMP=$build/test-results/python-venv \
      $venv/bin/python -m pytest -q -p no:cacheprovider tests/python" > "$root/build/pytest.log" 2>&1 || status=1
    tail -n 15 "$root/build/pytest.log" | sed 's/^/   /'
  else
    tail -n 30 "$root/build/pip.log"; status=1
  fi
fi
# 4. The .deb prefix of a GPU machine on a base that is not Debian 12.
if [[ $build_only -eq 0 ]] && grep -q '^ID=debian' /etc/os-release && [[ $(. /etc/os-release; echo "$VERSION_ID") == 12 ]]; then
  say "the .deb prefix of scripts/device/fetch_debs.sh on this base (check.sh's missing-library folder)"
  debs=$root.device-debs
  if bash "$source_dir/scripts/device/fetch_debs.sh" "$debs" > "$root.fetch_debs.log" 2>&1; then
    rm -rf "$root/tmp/prefix" && mkdir -p "$root/tmp/prefix"
    for deb in "$debs"/*.deb; do dpkg -x "$deb" "$root/tmp/prefix"; done
    in_root bash -c 'set -u; triplet=x86_64-linux-gnu
      eval "$(sed -n "/^never=/p; /^missing_libraries() {/,/^}/p" /src/embpriv/scripts/device/check.sh)"
      missing_libraries /tmp/prefix /tmp/prefix.missing | cut -c1-400
      lib=/tmp/prefix/usr/lib/$triplet
      for f in $lib/hdf5/serial/libhdf5.so $lib/libyaml-cpp.so; do
        if LD_LIBRARY_PATH=/tmp/prefix.missing ldd "$f" | grep "not found"; then echo "   $f: not every library found"; exit 1; fi
      done
      echo "   libhdf5 and libyaml-cpp of the prefix: every library found"' || status=1
  else
    tail -n 5 "$root.fetch_debs.log"; status=1
  fi
fi
say "done: $([[ $status -eq 0 ]] && echo passed || echo FAILED) (logs under $root/build)"
exit $status
