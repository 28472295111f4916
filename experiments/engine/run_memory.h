#pragma once
// The memory a run needs, from the types' estimates (ExperimentType::estimate_memory), checked
// before any work: a point, or the data the points of a run keep in its RunCache together,
// larger than the batch memory limit (platform/memory_limit.h) is refused with one error naming the
// keys that drive the size and the estimate against the limit.
#include "experiments/engine/memory_estimate.h"
#include "experiments/engine/run_plan.h"

namespace embpriv {

struct RunMemory {
  // The point with the largest peak (its own tensors and the shared data it reads).
  const GridPoint* largest_point = nullptr;
  MemoryEstimate largest;
  // The run's peak: every distinct RunCache entry of the rows (the cache lives until the run
  // ends) plus the largest working set of one point.
  double run_bytes = 0;
  std::size_t shared_entries = 0;
};

// The estimate over the rows of `shard`.
RunMemory estimate_run_memory(const RunPlan& plan, const Shard& shard);

// Throws embpriv::Error when the largest point, or the run as a whole, exceeds
// batch_memory_limit_bytes(): "run.yaml:3: data.dim = 100000000 (with data.samples = 20000): one
// grid point needs 9.6 TB (...), more than the limit of ...; lower data.dim or data.samples".
void check_run_memory(const RunPlan& plan, const RunMemory& memory);

}  // namespace embpriv
