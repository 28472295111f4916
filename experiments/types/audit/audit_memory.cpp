#include "experiments/types/audit/audit_memory.h"

#include <cstdint>
#include <string>

#include "platform/memory_limit.h"
#include "experiments/types/audit/audit_keys.h"

namespace embpriv {
namespace {

// Bytes per output value at the peak of audit_pair's selection half (attacks/audit.cpp): the
// outputs of both inputs in float32 (4 + 4), their float64 unit rows yu0 and yu1 (8 + 8), and the
// two float64 temporaries made on the way to one of them (8 + 8).
constexpr double kBytesPerValue = 40;
// Bytes per trial: the sorted statistics of both inputs and their pooled copy (8 + 8 + 16), and
// the statistic of the rows being scored (8).
constexpr double kBytesPerTrial = 40;

}  // namespace

MemoryEstimate audit_memory(const YAML::Node& config) {
  using namespace audit_key;
  const std::int64_t dim = kDim(config), trials = kTrials(config);
  MemoryEstimate m;
  m.working_bytes = batch_bytes(trials, dim, kBytesPerValue) + kBytesPerTrial * static_cast<double>(trials);
  m.size_keys = {kTrials.path(), kDim.path()};
  m.what = "the outputs of both inputs, 2 x " + std::to_string(trials) + " trials x " + std::to_string(dim) +
           " values, and their float64 unit rows";
  return m;
}

}  // namespace embpriv
