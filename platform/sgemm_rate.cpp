#include "platform/sgemm_rate.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>

#include "core/error.h"

namespace embpriv {

double measure_sgemm_gflops(int n, int repeats) {
  EMBPRIV_CHECK(n >= 1 && repeats >= 1, "the SGEMM size and repeats must be >= 1, got " << n << ", " << repeats);
  const at::Tensor a = at::rand({n, n}, at::kFloat), b = at::rand({n, n}, at::kFloat);
  at::Tensor c = at::mm(a, b);  // warm-up: thread pool, page faults, kernel tables
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    at::mm_out(c, a, b);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * n * static_cast<double>(n) * n / best / 1e9;
}

}  // namespace embpriv
