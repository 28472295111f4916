#pragma once
// Seeded inputs shared by the tests: random directions with norms log-uniform in [0.5, 2].
#include "data/corpora/synthetic_inputs.h"

namespace embpriv {

inline at::Tensor test_directions(std::int64_t n, std::int64_t d, std::uint64_t seed) {
  return random_directions(n, d, 0.5, 2.0, seed);
}

}  // namespace embpriv
