#include "models/minibatches.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace embpriv {

std::vector<at::Tensor> epoch_batches(std::vector<std::int64_t>& order, std::int64_t batch, Rng& rng) {
  shuffle(order, rng);
  const at::Tensor permutation = at::tensor(order, at::kLong);
  const auto N = static_cast<std::int64_t>(order.size());
  std::vector<at::Tensor> batches;
  for (std::int64_t b0 = 0; b0 < N; b0 += batch) batches.push_back(permutation.narrow(0, b0, std::min(batch, N - b0)));
  return batches;
}

}  // namespace embpriv
