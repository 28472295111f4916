#pragma once
// Mini-batches of one training epoch, shared by embpriv's LibTorch trainers.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "core/rng.h"

namespace embpriv {

// Shuffles `order` (the previous epoch's order, initially 0..N-1) with rng, then cuts it into
// batches of `batch` rows (the last one shorter): [B_i] int64 row indices.
std::vector<at::Tensor> epoch_batches(std::vector<std::int64_t>& order, std::int64_t batch, Rng& rng);

}  // namespace embpriv
