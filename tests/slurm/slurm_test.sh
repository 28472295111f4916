#!/usr/bin/env bash
# Runs scripts/slurm/ as Slurm would (without Slurm): both tasks of a 2-task array, then the
# merge job; the merged table must equal the table of one run of the same config.
# Usage: slurm_test.sh EMBPRIV_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
export EMBPRIV=$1
source_dir=$2 work=$3
config=$source_dir/configs/ci/perturbation_small.yaml
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export OUT_DIR=$work/results
for task in 1 2; do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=2 SLURM_CPUS_PER_TASK=1 \
    bash "$source_dir/scripts/slurm/sweep_array.sbatch" "$config" -q
done
bash "$source_dir/scripts/slurm/merge.sbatch" "$config" 2
"$EMBPRIV" run "$config" --out "$work/whole.h5" --no-plot -q
h5diff "$OUT_DIR/perturbation_small.h5" "$work/whole.h5" /table /table
test -s "$OUT_DIR/perturbation_small.cosine.png"
# A second run of a task (a requeue) finds its shard complete and leaves it unchanged.
before=$(h5dump -d /table/mean_cosine "$OUT_DIR/perturbation_small.part1.h5" | md5sum)
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 bash "$source_dir/scripts/slurm/sweep_array.sbatch" "$config" -q
after=$(h5dump -d /table/mean_cosine "$OUT_DIR/perturbation_small.part1.h5" | md5sum)
[[ $before == "$after" ]]
echo "slurm scripts: shards merged equal one run"
