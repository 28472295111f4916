#include "models/attention_matmul.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <vector>

#include "models/needs_grad.h"
#include "platform/blas_threads.h"

namespace embpriv {

at::Tensor attention_matmul(const at::Tensor& a, const at::Tensor& b) {
  const bool plain = a.device().is_cpu() && b.device().is_cpu() && !needs_grad(a) && !needs_grad(b) && a.dim() >= 3 &&
                     a.dim() == b.dim() && a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat &&
                     a.sizes().slice(0, a.dim() - 2) == b.sizes().slice(0, b.dim() - 2) && a.size(-1) == b.size(-2);
  if (!plain) return at::matmul(a, b);
  const std::int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  // Below 400 multiply-adds a product, ATen's bmm sums in a loop of its own, not in the BLAS
  // (bmm_out_or_baddbmm_): the same bits only from at::matmul itself.
  constexpr std::int64_t kBmmOwnLoop = 400;
  if (M * K * N < kBmmOwnLoop) return at::matmul(a, b);
  const SingleThreadedBlas blas;
  if (!blas.in_caller_thread()) return at::matmul(a, b);
  // Folded as at::matmul folds them before its bmm (a copy where the view is not contiguous).
  const at::Tensor a3 = a.reshape({-1, M, K}), b3 = b.reshape({-1, K, N});
  const std::int64_t n = a3.size(0);
  at::Tensor out = at::empty({n, M, N}, a.options());
  // One bmm per thread over its share of the products: bmm loops over them without a dispatch
  // per product (at::mm_out per product made BERT-base's forward 5-7% slower at one thread).
  at::parallel_for(0, n, 1, [&](std::int64_t begin, std::int64_t end) {
    at::Tensor products = out.slice(0, begin, end);
    at::bmm_out(products, a3.slice(0, begin, end), b3.slice(0, begin, end));
  });
  std::vector<std::int64_t> sizes(a.sizes().begin(), a.sizes().end() - 2);
  sizes.push_back(M);
  sizes.push_back(N);
  return out.view(sizes);
}

}  // namespace embpriv
