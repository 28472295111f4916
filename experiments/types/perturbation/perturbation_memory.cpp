#include "experiments/types/perturbation/perturbation_memory.h"

#include <algorithm>
#include <string>

#include "platform/memory_limit.h"
#include "experiments/types/perturbation/perturbation_keys.h"
#include "experiments/types/shared/user_vectors.h"
#include "experiments/types/shared/user_vectors_keys.h"

namespace embpriv {
namespace {

// Peak bytes per value of one chunk: x and y = M(x) in float32 (4 + 4), and the two float64
// temporaries of the statistics (x.to(kDouble) and its square or absolute value, 8 + 8); the
// mechanism's float32 temporaries are gone by then. Measured: 23 bytes a value (peak RSS over a
// small run's, 4096 x 8192 with vmf_tangent and 4096 x 16384 with gaussian; docs/reliability.md).
constexpr double kBytesPerChunkValue = 24;

}  // namespace

MemoryEstimate perturbation_memory(const YAML::Node& config) {
  using namespace perturbation_key;
  std::int64_t dim = kDim(config), samples = kSamples(config);
  MemoryEstimate m;
  if (uses_user_vectors(config)) {
    // The user's file, held whole in the run's cache (float32), is streamed chunk by chunk too.
    const UserVectorsShape shape = check_user_vectors(config);
    dim = shape.dim;
    samples = shape.rows;
    m.shared_bytes = batch_bytes(shape.rows, shape.dim, 4);
    m.shared_key = "user_vectors|" + user_vectors_key::kVectors(config) + "|" + user_vectors_key::kDataset(config);
  }
  const std::int64_t rows = std::min(kPerturbationChunkRows, samples);
  m.working_bytes = batch_bytes(rows, dim, kBytesPerChunkValue);
  m.size_keys = m.shared_key.empty() ? std::vector<std::string>{kDim.path(), kSamples.path()}
                                     : std::vector<std::string>{user_vectors_key::kVectors.path()};
  m.what = "one chunk of " + std::to_string(rows) + " rows x " + std::to_string(dim) + " values, " +
           std::to_string(static_cast<int>(kBytesPerChunkValue)) + " bytes each";
  return m;
}

}  // namespace embpriv
