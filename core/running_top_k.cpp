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

namespace {

// x86-64: one copy of the scan per instruction set, the best the CPU has chosen when the program
// loads; elsewhere the compiler's default target.
#if defined(__x86_64__) && !defined(__clang__)
#define EMBPRIV_SCAN_TARGETS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define EMBPRIV_SCAN_TARGETS
#endif

// One row's chunk offered to its list: values[j] - subtract[j] (subtract may be null) for
// columns first + j. Almost every score is below the row's k-th best, so the scan compares
// blocks of 16 scores with it at once (the compiler vectorises the block's loop for each target
// of target_clones, chosen when the program loads) and walks a block score by score only when
// one of them is above. An excluded column arrives with subtract = +inf: its score is -inf or
// NaN, never kept.
EMBPRIV_SCAN_TARGETS void offer_row(
    float* best, std::int64_t* column, std::int64_t k, const float* values, const float* subtract, std::int64_t n,
    std::int64_t first) {
  constexpr std::int64_t kBlock = 16;
  std::int64_t j = 0;
  for (; j + kBlock <= n; j += kBlock) {
    const float threshold = best[k - 1];
    int above = 0;
    if (subtract != nullptr) {
      for (std::int64_t i = 0; i < kBlock; ++i) above |= (values[j + i] - subtract[j + i]) > threshold;
    } else {
      for (std::int64_t i = 0; i < kBlock; ++i) above |= values[j + i] > threshold;
    }
    if (above == 0) continue;
    for (std::int64_t i = j; i < j + kBlock; ++i) {
      offer_top_k(best, column, k, subtract != nullptr ? values[i] - subtract[i] : values[i], first + i);
    }
  }
  for (; j < n; ++j) offer_top_k(best, column, k, subtract != nullptr ? values[j] - subtract[j] : values[j], first + j);
}

}  // namespace

void RunningTopK::add(const at::Tensor& scores, std::int64_t first, const at::Tensor& column_offset,
                      const at::Tensor& excluded) {
  EMBPRIV_ASSERT(scores.dim() == 2 && scores.size(0) == rows_ && scores.device().is_cpu(),
                 "top-k: scores must be CPU [" << rows_ << ", n], got " << scores.sizes());
  const at::Tensor s = scores.to(at::kFloat).contiguous();
  const std::int64_t n = s.size(1);
  EMBPRIV_ASSERT(!column_offset.defined() || column_offset.numel() == n,
                 "top-k: column_offset must have " << n << " values");
  EMBPRIV_ASSERT(!excluded.defined() || excluded.numel() == n, "top-k: excluded must have " << n << " values");
  // One offset per column: the given one, +inf on excluded columns (their score becomes -inf).
  at::Tensor offset = column_offset.defined() ? column_offset.to(at::kFloat).contiguous() : at::Tensor();
  if (excluded.defined()) {
    const at::Tensor skip = excluded.to(at::kBool).reshape({n});
    offset = (offset.defined() ? offset.reshape({n}) : at::zeros({n}, at::kFloat))
                 .masked_fill(skip, std::numeric_limits<float>::infinity())
                 .contiguous();
  }
  const float* values = s.data_ptr<float>();
  const float* subtract = offset.defined() ? offset.data_ptr<float>() : nullptr;
  const std::int64_t k = k_;
  // Rows are independent: any split over threads gives the same lists.
  at::parallel_for(0, rows_, 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      offer_row(best_scores_.data() + row * k, best_columns_.data() + row * k, k, values + row * n, subtract, n,
                first);
    }
  });
}

at::Tensor RunningTopK::indices() const {
  return at::tensor(best_columns_, at::kLong).reshape({rows_, k_});
}

at::Tensor RunningTopK::scores() const { return at::tensor(best_scores_, at::kFloat).reshape({rows_, k_}); }

}  // namespace embpriv
