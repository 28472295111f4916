#include "core/running_top_k.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <limits>

#include "core/error.h"

namespace embpriv {

RunningTopK::RunningTopK(std::int64_t rows, std::int64_t k)
    : rows_(rows),
      k_(k),
      best_scores_(static_cast<std::size_t>(rows * k), -std::numeric_limits<float>::infinity()),
      best_columns_(static_cast<std::size_t>(rows * k), -1) {
  EMBPRIV_ASSERT(rows >= 0 && k >= 1, "top-k needs rows >= 0 and k >= 1, got " << rows << ", " << k);
}

void RunningTopK::add(const at::Tensor& scores, std::int64_t first, const at::Tensor& column_offset,
                      const at::Tensor& excluded) {
  EMBPRIV_ASSERT(scores.dim() == 2 && scores.size(0) == rows_ && scores.device().is_cpu(),
                 "top-k: scores must be CPU [" << rows_ << ", n], got " << scores.sizes());
  const at::Tensor s = scores.to(at::kFloat).contiguous();
  const std::int64_t n = s.size(1);
  const at::Tensor offset = column_offset.defined() ? column_offset.to(at::kFloat).contiguous() : at::Tensor();
  const at::Tensor skip = excluded.defined() ? excluded.to(at::kBool).contiguous() : at::Tensor();
  EMBPRIV_ASSERT(!offset.defined() || offset.numel() == n, "top-k: column_offset must have " << n << " values");
  EMBPRIV_ASSERT(!skip.defined() || skip.numel() == n, "top-k: excluded must have " << n << " values");
  const float* values = s.data_ptr<float>();
  const float* subtract = offset.defined() ? offset.data_ptr<float>() : nullptr;
  const bool* skipped = skip.defined() ? skip.data_ptr<bool>() : nullptr;
  const std::int64_t k = k_;
  // Rows are independent: any split over threads gives the same lists.
  at::parallel_for(0, rows_, 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      float* best = best_scores_.data() + row * k;
      std::int64_t* column = best_columns_.data() + row * k;
      const float* r = values + row * n;
      for (std::int64_t j = 0; j < n; ++j) {
        const float v = subtract ? r[j] - subtract[j] : r[j];
        if (v > best[k - 1] && !(skipped && skipped[j])) offer_top_k(best, column, k, v, first + j);
      }
    }
  });
}

at::Tensor RunningTopK::indices() const {
  return at::tensor(best_columns_, at::kLong).reshape({rows_, k_});
}

at::Tensor RunningTopK::scores() const { return at::tensor(best_scores_, at::kFloat).reshape({rows_, k_}); }

}  // namespace embpriv
