#!/usr/bin/env bash
# Executes one notebook headless into OUT_DIR (the committed notebook is never modified), with
# the NAME=VALUE pairs in its environment (the results files it reads: EMBPRIV_<CONFIG>=path,
# notebooks/paper_results.py; EMBPRIV_RESULTS for vmf_paper). Fails when a cell raises.
# Usage: run_notebook.sh NOTEBOOK OUT_DIR [NAME=VALUE...]
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: run_notebook.sh NOTEBOOK OUT_DIR [NAME=VALUE...]" >&2; exit 2; }
notebook=$1 out_dir=$2
shift 2
for pair in "$@"; do
  [[ $pair == *=* ]] || { echo "run_notebook.sh: '$pair' is not NAME=VALUE" >&2; exit 2; }
  export "${pair?}"
done
mkdir -p "$out_dir"
# EMBPRIV_TEST_PYTHON (cmake/find_python.cmake; ctest sets it): a python3 with h5py, pandas and
# matplotlib, such as Debian's; the python3 first on PATH may lack them.
export PYDEVD_DISABLE_FILE_VALIDATION=1
exec "${EMBPRIV_TEST_PYTHON:-python3}" -Xfrozen_modules=off -m nbconvert --to notebook --execute \
  --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=python3 \
  --output-dir "$out_dir" --output "$(basename "$notebook" .ipynb).executed.ipynb" "$notebook"
