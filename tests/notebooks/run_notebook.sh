#!/usr/bin/env bash
# Executes one notebook headless on a results file, into OUT_DIR (the committed notebook is
# never modified). Fails when a cell raises.
# Usage: run_notebook.sh NOTEBOOK RESULTS_H5 OUT_DIR
set -euo pipefail
notebook=$1 results=$2 out_dir=$3
mkdir -p "$out_dir"
# Debian's Python has h5py, pandas and matplotlib; the python3 first on PATH may not.
export EMBPRIV_RESULTS=$results PYDEVD_DISABLE_FILE_VALIDATION=1
exec /usr/bin/python3 -Xfrozen_modules=off -m nbconvert --to notebook --execute \
  --ExecutePreprocessor.timeout=600 --ExecutePreprocessor.kernel_name=python3 \
  --output-dir "$out_dir" --output "$(basename "$notebook" .ipynb).executed.ipynb" "$notebook"
