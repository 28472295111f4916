// Local DP of PrivateAI's releases (eq. (4)): the clipping function, the paper's noise scale, and
// the noise actually added (its standard deviation within 1% over 400,000 draws: a release with
// the noise of Delta2 = theta instead of 2 theta, or no clipping, fails). Fixed seeds.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "federated/local_dp.h"

using namespace embpriv;

TEST_CASE("clip_to_norm is h(v; theta) of eq. (4)", "[federated]") {
  const at::Tensor v = at::tensor({3.0, 4.0}, at::kDouble);  // norm 5
  CHECK(clip_to_norm(v, 1.0).norm().item<double>() == Approx(1.0));
  CHECK(clip_to_norm(v, 1.0)[0].item<double>() == Approx(0.6));
  CHECK(at::equal(clip_to_norm(v, 10.0), v));  // inside the ball: unchanged
  CHECK_THROWS_AS(clip_to_norm(v, 0.0), Error);
  CHECK_THROWS_AS(clip_to_norm(at::tensor({NAN, 1.0}, at::kDouble), 1.0), Error);
}

TEST_CASE("local DP sigma is the paper's sigma^2 = 8 theta^2 ln(1.25/delta) / eps^2", "[federated]") {
  LocalDpOptions o;
  o.epsilon = 0.5;
  o.delta = 1e-3;
  o.clip_norm = 2.0;
  CHECK(local_dp_sigma(o) == Approx(std::sqrt(8 * 4.0 * std::log(1.25 / 1e-3)) / 0.5).epsilon(1e-12));
  o.calibration = NoiseCalibration::analytic;
  const double analytic = local_dp_sigma(o);
  CHECK(analytic < std::sqrt(8 * 4.0 * std::log(1.25 / 1e-3)) / 0.5);  // the exact one is tighter
  CHECK(analytic > 0);
  o.enabled = false;
  CHECK(local_dp_sigma(o) == 0.0);
}

TEST_CASE("a release is the clipped model plus N(0, sigma^2) noise, deterministic for a seed", "[federated]") {
  const std::int64_t P = 400000;
  const at::Tensor global = at::full({P}, 0.01, at::kFloat);
  const at::Tensor local = global + 0.02;  // update norm 0.02 sqrt(P) = 12.6 > theta
  LocalDpOptions o;
  o.epsilon = 10;
  o.delta = 1e-4;
  o.clip_norm = 1.0;
  const double sigma = local_dp_sigma(o);
  SECTION("parameters clipped as published") {
    o.clip = ClipTarget::parameters;
    const at::Tensor noise = release_local_model(local, global, o, 7).to(at::kDouble) - clip_to_norm(local, 1.0).to(at::kDouble);
    CHECK(noise.std().item<double>() == Approx(sigma).epsilon(0.01));
    CHECK(std::abs(noise.mean().item<double>()) < 5 * sigma / std::sqrt(static_cast<double>(P)));
  }
  SECTION("update clipped (the variant)") {
    o.clip = ClipTarget::update;
    const at::Tensor released = release_local_model(local, global, o, 7).to(at::kDouble);
    const at::Tensor noise = released - global.to(at::kDouble) - clip_to_norm(local - global, 1.0).to(at::kDouble);
    CHECK(noise.std().item<double>() == Approx(sigma).epsilon(0.01));
  }
  CHECK(at::equal(release_local_model(local, global, o, 7), release_local_model(local, global, o, 7)));
  CHECK_FALSE(at::equal(release_local_model(local, global, o, 7), release_local_model(local, global, o, 8)));
  o.enabled = false;
  CHECK(at::equal(release_local_model(local, global, o, 7), local));
  CHECK_THROWS_AS(release_local_model(local, global.narrow(0, 0, 10), o, 7), Error);
}
