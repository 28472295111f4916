// Statistical tests of the noise the `gaussian` and `laplace` mechanisms add
// (tests/core/rng_distribution_test.cpp tests the generator's variates they draw from).
//
// Every test states its false-alarm rate and its power (GUIDE.md, sec. 4, habits 6-7): each
// acceptance is a KS test (DKW-Massart critical value, metrics/ks_test.h) at alpha = 1e-6 with a
// fixed seed, and each is paired with a deliberately broken variant (a scale off by a few
// percent, a Gaussian posing as a Laplace) that the same test must reject.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <vector>

#include "mechanisms/gaussian.h"
#include "mechanisms/gaussian_calibration.h"
#include "mechanisms/laplace.h"
#include "metrics/distributions.h"
#include "metrics/ks_test.h"
#include "tests/catch.h"

namespace {

constexpr double kAlpha = 1e-6;

// n rows of dimension d with i.i.d. N(0, 1) entries (torch's CPU generator, fixed seed),
// each rescaled to the given norm: L2 when l1 is false, L1 when true.
at::Tensor rows_with_norm(std::int64_t n, std::int64_t d, double norm, bool l1,
                          std::uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  at::Tensor x = at::randn({n, d}, generator, at::kDouble);
  const at::Tensor norms = l1 ? x.abs().sum(1, true) : x.norm(2, 1, true);
  return (x * (norm / norms)).to(at::kFloat).contiguous();
}

// The noise y - x of a mechanism, per coordinate, divided by `scale` (computed in double from
// the float32 batches).
std::vector<double> standardised_noise(const embpriv::Mechanism& m, const at::Tensor& x,
                                       std::uint64_t seed, double scale) {
  const at::Tensor y = m.perturb(x, embpriv::RandomStream{seed, 0}).contiguous();
  const float* px = x.data_ptr<float>();
  const float* py = y.data_ptr<float>();
  std::vector<double> noise(static_cast<std::size_t>(x.numel()));
  for (std::size_t i = 0; i < noise.size(); ++i) {
    noise[i] = (static_cast<double>(py[i]) - static_cast<double>(px[i])) / scale;
  }
  return noise;
}

double standard_normal(double x) { return embpriv::standard_normal_cdf(x); }
double standard_laplace(double x) { return embpriv::laplace_cdf(x, 1.0); }

}  // namespace

TEST_CASE("gaussian mechanism noise is N(0, sigma^2); sigma x 1.06 is rejected", "[stat][mechanisms]") {
  // Rows of norm 0.5 < C = 1, so clipping does nothing and y - x is the noise itself.
  // 1024 x 256 = 262,144 coordinates: critical value 0.0053; N(0, 1.06^2) is at KS distance
  // 0.0141 from N(0, 1).
  const double epsilon = 1.0, delta = 1e-5, clip = 1.0;
  const at::Tensor x = rows_with_norm(1024, 256, 0.5, /*l1=*/false, 21);
  const embpriv::GaussianMechanism nominal(epsilon, delta, clip,
                                           embpriv::GaussianCalibration::analytic);
  const double sigma = nominal.sigma();
  CHECK_FALSE(embpriv::ks_test(standardised_noise(nominal, x, 22, sigma), standard_normal, kAlpha)
                  .reject());

  // Broken: the mechanism at the smaller epsilon whose analytic sigma is 1.06 sigma (found by
  // bisection; sigma decreases in epsilon), tested against the nominal sigma.
  const double l2_sensitivity = 2.0 * clip;
  double lo = 0.5 * epsilon, hi = epsilon;  // sigma(lo) > 1.06 sigma > sigma(hi)
  REQUIRE(embpriv::analytic_gaussian_sigma(lo, delta, l2_sensitivity) > 1.06 * sigma);
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (embpriv::analytic_gaussian_sigma(mid, delta, l2_sensitivity) > 1.06 * sigma ? lo : hi) = mid;
  }
  const embpriv::GaussianMechanism wide(hi, delta, clip, embpriv::GaussianCalibration::analytic);
  REQUIRE(wide.sigma() / sigma == Approx(1.06).epsilon(1e-9));
  CHECK(embpriv::ks_test(standardised_noise(wide, x, 22, sigma), standard_normal, kAlpha).reject());
}

TEST_CASE("laplace mechanism noise is Laplace(0, b); a Gaussian of the same variance and b x 1.06 "
          "are rejected",
          "[stat][mechanisms]") {
  // Rows of L1 norm 0.5 < C = 1: no clipping. b = 2C / eps = 1 at eps = 2.
  // 262,144 coordinates: critical value 0.0053.
  const at::Tensor x = rows_with_norm(1024, 256, 0.5, /*l1=*/true, 31);
  const embpriv::LaplaceMechanism laplace(2.0, 1.0);
  const double b = laplace.scale();
  CHECK(b == 1.0);
  CHECK_FALSE(
      embpriv::ks_test(standardised_noise(laplace, x, 32, b), standard_laplace, kAlpha).reject());

  // Broken 1: Gaussian noise with the Laplace variance 2 b^2, i.e. sigma = b sqrt(2): any
  // gaussian mechanism, with b taken as its sigma / sqrt(2). KS distance 0.06.
  const at::Tensor x2 = rows_with_norm(1024, 256, 0.5, /*l1=*/false, 33);
  const embpriv::GaussianMechanism gaussian(1.0, 1e-5, 1.0, embpriv::GaussianCalibration::analytic);
  const double b_same_variance = gaussian.sigma() / std::sqrt(2.0);
  CHECK(embpriv::ks_test(standardised_noise(gaussian, x2, 34, b_same_variance), standard_laplace,
                         kAlpha)
            .reject());

  // Broken 2: b x 1.06 (the mechanism at eps / 1.06), tested against b. KS distance 0.0107.
  const embpriv::LaplaceMechanism wide(2.0 / 1.06, 1.0);
  REQUIRE(wide.scale() == Approx(1.06 * b).epsilon(1e-15));
  CHECK(embpriv::ks_test(standardised_noise(wide, x, 32, b), standard_laplace, kAlpha).reject());
}
