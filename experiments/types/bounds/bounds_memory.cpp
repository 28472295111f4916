#include "experiments/types/bounds/bounds_memory.h"

#include <cstdint>
#include <string>

#include "platform/memory_limit.h"
#include "experiments/types/bounds/bounds_keys.h"

namespace embpriv {
namespace {

// The cached inputs (make_bounds_inputs): x1 and x2, samples x dim float32 (4 + 4 bytes a value),
// and three float64 values per sample (||x1||, its L1 norm, x1 . x2).
constexpr double kSharedBytesPerValue = 8;
constexpr double kSharedBytesPerSample = 24;
// A setting's working set: the perturbed batches y1 and y2 in float32 (4 + 4) and one float32
// temporary of the mechanism while it draws y2 (4); the checks reduce row by row. Measured: 15.4
// bytes a value in all, shared inputs included (20,000 x 4096, vmf_tangent; docs/reliability.md).
constexpr double kWorkingBytesPerValue = 12;

}  // namespace

MemoryEstimate bounds_memory(const YAML::Node& config) {
  using namespace bounds_key;
  const std::int64_t dim = kDim(config), samples = kSamples(config);
  MemoryEstimate m;
  m.shared_bytes = batch_bytes(samples, dim, kSharedBytesPerValue) + kSharedBytesPerSample * static_cast<double>(samples);
  m.shared_key = "bounds_inputs|" + std::to_string(samples) + "|" + std::to_string(dim);
  m.shared_per_seed = true;
  m.working_bytes = batch_bytes(samples, dim, kWorkingBytesPerValue);
  m.size_keys = {kDim.path(), kSamples.path()};
  m.what = "the inputs x1, x2 and the outputs y1, y2 of " + std::to_string(samples) + " rows x " +
           std::to_string(dim) + " values, with the mechanism's and the checks' temporaries";
  return m;
}

}  // namespace embpriv
