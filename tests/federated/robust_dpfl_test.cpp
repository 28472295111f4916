// Robust-DPFL (docs/privateai.md, "Baselines"): the RDP calibration inverts the accountant, and
// the noise-aware mean keeps every clean release (8 clients, P = 4000, fixed seeds: the band is
// z = 3 standard deviations, so a clean release falls out with probability below 1e-3) and drops
// a release shifted far beyond the clip, or one carrying twice the noise.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <cmath>

#include "accounting/renyi_dp.h"
#include "core/error.h"
#include "core/rng.h"
#include "federated/local_dp.h"
#include "federated/robust_dpfl.h"

using namespace embpriv;

namespace {

at::Tensor gaussian(std::int64_t P, double sigma, std::uint64_t seed) {
  at::Tensor out = at::empty({P}, at::kDouble);
  Rng rng(seed, 0);
  for (std::int64_t i = 0; i < P; ++i) out[i] = sigma * rng.normal();
  return out;
}

}  // namespace

TEST_CASE("Robust-DPFL: sigma makes T releases exactly (eps, delta)-DP by RDP", "[federated]") {
  for (const std::int64_t T : {1, 10, 50}) {
    for (const double eps : {0.5, 2.0, 10.0}) {
      const double sigma = calibrated_sigma(NoiseCalibration::rdp, eps, 1e-3, 2.0, T);
      INFO("T " << T << " eps " << eps << " sigma " << sigma);
      CHECK(gaussian_rdp_account(sigma / 2.0, T, 1e-3).epsilon == Approx(eps).epsilon(1e-6));
      CHECK(gaussian_rdp_account(0.99 * sigma / 2.0, T, 1e-3).epsilon > eps);  // the smallest such sigma
    }
  }
  // More releases for the same budget need more noise: about sqrt(T) times.
  const double one = calibrated_sigma(NoiseCalibration::rdp, 1, 1e-5, 1, 1), hundred = calibrated_sigma(NoiseCalibration::rdp, 1, 1e-5, 1, 100);
  CHECK(hundred / one > 7);
  CHECK(hundred / one < 12);
  CHECK_THROWS_AS(calibrated_sigma(NoiseCalibration::rdp, 0, 1e-5, 1, 1), Error);
  CHECK_THROWS_AS(calibrated_sigma(NoiseCalibration::rdp, 1, 0, 1, 1), Error);
}

TEST_CASE("Robust-DPFL: the noise-aware mean keeps clean releases and drops outliers", "[federated][stat]") {
  const std::int64_t P = 4000, n = 8;
  const double sigma = 0.05, theta = 1.0, z = 3;
  const at::Tensor global = gaussian(P, 1.0, 1);
  std::vector<at::Tensor> releases;
  for (std::int64_t u = 0; u < n; ++u) {
    at::Tensor update = gaussian(P, 1.0, 100 + static_cast<std::uint64_t>(u));
    update *= theta / update.norm().item<double>();  // clipped to theta
    releases.push_back(global + update + gaussian(P, sigma, 200 + static_cast<std::uint64_t>(u)));
  }
  const RobustAggregate clean = noise_aware_mean(releases, sigma, theta, z);
  CHECK(clean.kept == n);
  CHECK(at::allclose(clean.model, at::stack(releases).mean(0)));
  CHECK(clean.threshold == Approx(4 * theta * theta + 2 * P * sigma * sigma +
                                  z * (2 * std::sqrt(2.0 * P) * sigma * sigma + 4 * std::sqrt(2.0) * theta * sigma)));
  // A poisoned release 5 theta away, and one with twice the noise: both dropped.
  std::vector<at::Tensor> attacked = releases;
  attacked[2] = global + 5 * theta * at::ones({P}, at::kDouble) / std::sqrt(static_cast<double>(P)) +
                gaussian(P, sigma, 300);
  attacked[5] = global + gaussian(P, 2 * sigma, 301);
  const RobustAggregate robust = noise_aware_mean(attacked, sigma, theta, z);
  CHECK(robust.kept == n - 2);
  std::vector<at::Tensor> kept;
  for (std::int64_t u = 0; u < n; ++u) {
    if (u != 2 && u != 5) kept.push_back(attacked[static_cast<std::size_t>(u)]);
  }
  CHECK(at::allclose(robust.model, at::stack(kept).mean(0)));
  // Fewer than three releases: nothing can be told apart, all are averaged.
  CHECK(noise_aware_mean({releases[0], attacked[2]}, sigma, theta, z).kept == 2);
  CHECK_THROWS_AS(noise_aware_mean({}, sigma, theta, z), Error);
}
