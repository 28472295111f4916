// Tests of mechanisms/wood_sampler.h (Wood 1994) and of exact vMF at huge kappa = eps / beta:
// the sampler must stay finite, fast and right where 4 kappa^2 overflows.
#include "mechanisms/wood_sampler.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/rng.h"
#include "mechanisms/vmf.h"
#include "metrics/intervals.h"
#include "metrics/running_stats.h"
#include "metrics/similarity.h"
#include "tests/catch.h"

namespace {

constexpr double kLargestKappa = std::numeric_limits<double>::max();

// Mean of kappa (1 - w) over n draws of a sampler built with kappa_drawn, scaled by kappa.
embpriv::RunningStats scaled_gaps(double kappa_drawn, double kappa, std::int64_t d, int n) {
  const embpriv::WoodSampler sampler(kappa_drawn, d);
  embpriv::Rng rng(20, 0);
  embpriv::RunningStats stats;
  for (int i = 0; i < n; ++i) {
    const embpriv::WoodSampler::Draw draw = sampler.draw(rng);
    // 1 - w = (1 - w^2) / (1 + w), without cancellation near w = 1.
    stats.add(kappa * (draw.one_minus_w2 / (1.0 + draw.w)));
  }
  return stats;
}

}  // namespace

TEST_CASE("Wood's sampler draws the right 1 - w at kappa from 1e17 to the largest double",
          "[mechanisms][stat]") {
  // For large kappa the marginal density of t = 1 - w, proportional to
  // exp(-kappa t) (t (2 - t))^((d-3)/2), makes kappa t Gamma((d-1)/2, 1) up to the factor
  // (1 - t/2)^((d-3)/2) = 1 - O(d^2 / kappa) (< 1e-11 here): mean and variance (d-1)/2. Check the mean of n = 20,000 draws
  // at false-alarm rate 1e-6 (two-sided normal quantile 4.89, fixed seed). Power: a sampler
  // built with kappa x 1.1 has mean (d-1)/2.2, 100 standard errors away, and must be rejected.
  // Before the scaled form of Wood's b, kappa > 6.7e153 gave b = 0 and a NaN acceptance test
  // that looped forever.
  const std::int64_t d = 768;
  const int n = 20000;
  const double z = embpriv::normal_two_sided_quantile(1.0 - 1e-6);
  const double mean = 0.5 * static_cast<double>(d - 1);
  const double standard_error = std::sqrt(mean / n);
  for (double kappa : {1e17, 1e100, 1e160, 1e300, kLargestKappa}) {
    INFO("kappa = " << kappa);
    const embpriv::RunningStats right = scaled_gaps(kappa, kappa, d, n);
    CHECK(std::fabs(right.mean() - mean) < z * standard_error);
    if (kappa < kLargestKappa) {
      const embpriv::RunningStats broken = scaled_gaps(1.1 * kappa, kappa, d, n);
      CHECK(std::fabs(broken.mean() - mean) > z * standard_error);
    }
  }
}

TEST_CASE("exact vMF returns finite unit vectors at kappa >= 1e17 (it looped forever above ~6.7e153)", "[mechanisms]") {
  // eps / beta from 1e17 to the largest double, d = 2 (where Wood's b is subnormal at the
  // largest kappa) and d = 768. Tolerance: outputs are float32, so ||y|| / ||x|| is 1 within
  // 2^-24 per rounding; 1e-6 allows a few.
  at::Generator generator = at::detail::createCPUGenerator(17);
  for (std::int64_t d : {2, 768}) {
    const at::Tensor x = at::randn({500, d}, generator, at::kFloat);
    for (double kappa : {1e17, 1e20, 1e100, 1e160, 1e300, kLargestKappa}) {
      INFO("d = " << d << ", kappa = " << kappa);
      // Before the fix this call never returned (ctest's timeout ends such a run).
      const at::Tensor y = embpriv::VmfMechanism(kappa, 1.0).perturb(x, {3, 0});
      REQUIRE(at::isfinite(y).all().item<bool>());
      for (double ratio : embpriv::row_norm_ratios(x, y)) CHECK(std::fabs(ratio - 1.0) < 1e-6);
      // The outputs sit on the input direction to float precision (1 - w < 1e-14).
      for (double c : embpriv::row_cosines(x, y)) CHECK(c > 1.0 - 1e-6);
    }
  }
}

TEST_CASE("exact vMF refuses an epsilon / beta that overflows to infinity", "[mechanisms]") {
  // eps and beta are each finite and positive, but kappa = eps / beta is not a number Wood's
  // sampler can use.
  CHECK_THROWS_WITH(embpriv::VmfMechanism(1e300, 1e-10), Catch::Contains("kappa"));
  // The text budget alpha * eps (vMF paper, Def. 6.1) overflows kappa where eps alone did not.
  CHECK_THROWS_WITH(embpriv::VmfMechanism(1e300, 1e-8, 1e10), Catch::Contains("alpha * epsilon / beta"));
  CHECK_NOTHROW(embpriv::VmfMechanism(1e300, 1e-8, 1.0));
}
