#!/usr/bin/env bash
# Submits a sweep as a Slurm job array of N shards plus a merge job that runs once every shard
# has succeeded (docs/cluster.md).
#   scripts/slurm/submit.sh CONFIG N [key=value ...]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
config=${1:?usage: submit.sh CONFIG N [key=value ...]}
shards=${2:?usage: submit.sh CONFIG N [key=value ...]}
shift 2
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: N must be a positive integer, got '$shards'" >&2; exit 2; }
"${EMBPRIV:-build/embpriv}" run "$config" "$@" --dry-run   # a bad config fails here, not on the cluster

array_job=$(sbatch --parsable --array=1-"$shards" "$here/sweep_array.sbatch" "$config" "$@")
array_job=${array_job%%;*}   # "id;cluster" on federated sites
merge_job=$(sbatch --parsable --dependency=afterok:"$array_job" "$here/merge.sbatch" "$config" "$shards")
echo "submitted shards as job array $array_job (1-$shards) and the merge as job ${merge_job%%;*}"
