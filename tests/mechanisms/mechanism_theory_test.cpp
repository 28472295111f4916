// What each mechanism says its theory predicts (mechanisms/mechanism.h) equals the closed forms
// of mechanisms/theory.h and the audit's neighbouring pairs of the claims: the experiment types
// read these, so a wrong prediction here would make every check and theory column wrong.
#include <ATen/ATen.h>

#include "tests/catch.h"

#include <cmath>

#include "mechanisms/gaussian_calibration.h"
#include "experiments/engine/mechanism_yaml.h"
#include "mechanisms/theory.h"

using namespace embpriv;

namespace {

std::unique_ptr<Mechanism> make(const char* yaml) {
  return make_mechanism(yaml, default_mechanism_registry());
}

}  // namespace

TEST_CASE("direction mechanisms predict their cosine, dot-product factor and kept norm", "[mechanisms]") {
  const auto tangent = make("{name: vmf_tangent, epsilon: 2, beta: 0.5}");
  CHECK(tangent->norm_kept().known());
  const Prediction cos_tangent = tangent->cosine(64, 3.0);  // at the epsilon asked, not the built one
  CHECK(cos_tangent.every_sample);
  CHECK(cos_tangent.value == expected_cosine_tangent(0.5, 3.0));
  CHECK(tangent->dot_product_factor(64, 3.0).value == dot_product_factor_tangent(0.5, 3.0));
  CHECK_FALSE(tangent->expected_squared_norm(1.0, 1.0, 64, 3.0).known());
  CHECK_FALSE(tangent->noise_is_additive());
  CHECK(std::isnan(tangent->clip_norm()));

  const auto vmf = make("{name: vmf, epsilon: 2, beta: 0.5}");
  const Prediction cos_vmf = vmf->cosine(64, 3.0);
  CHECK_FALSE(cos_vmf.every_sample);
  CHECK(cos_vmf.value == vmf_mean_resultant(64, 6.0));
  CHECK(vmf->dot_product_factor(64, 3.0).value == dot_product_factor_vmf(64, 6.0));
  CHECK_FALSE(vmf->angle_depends_on_norm().known());
}

TEST_CASE("clipped mechanisms predict E||y||^2 after clipping (Thm 5.4 and its Laplace analogue)", "[mechanisms]") {
  const auto gaussian = make("{name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 2}");
  const double sigma = gaussian_sigma(GaussianCalibration::analytic, 0.5, 1e-5, 4.0);
  CHECK_FALSE(gaussian->norm_kept().known());
  // ||x||^2 = 9 is clipped to C^2 = 4; ||x||^2 = 1 is not.
  CHECK(gaussian->expected_squared_norm(9.0, 5.0, 10, 0.5).value == gaussian_expected_squared_norm(4.0, 10, sigma));
  CHECK(gaussian->expected_squared_norm(1.0, 1.0, 10, 0.5).value == gaussian_expected_squared_norm(1.0, 10, sigma));
  CHECK(gaussian->noise_is_additive());
  CHECK(gaussian->clip_norm() == 2.0);

  const auto laplace = make("{name: laplace, epsilon: 1, clip_norm: 2}");
  // L1 norm 8 > C = 2: x is scaled by 1/4, so ||x||^2 = 9 becomes 9/16; b = 2C/eps.
  CHECK(laplace->expected_squared_norm(9.0, 8.0, 10, 0.5).value == laplace_expected_squared_norm(9.0 / 16.0, 10, 8.0));
  CHECK(laplace->expected_squared_norm(1.0, 1.5, 10, 0.5).value == laplace_expected_squared_norm(1.0, 10, 8.0));

  const auto np = make("{name: npgaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 2}");
  CHECK(np->norm_kept().known());
  CHECK(np->angle_depends_on_norm().known());
  CHECK_FALSE(np->noise_is_additive());
}

TEST_CASE("the noise-share epsilon gives noise of that norm under the analytic calibration", "[mechanisms]") {
  for (const char* yaml : {"{name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 2}",
                           "{name: npgaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 2}"}) {
    const double eps = make(yaml)->epsilon_for_noise_share(0.5, 400);
    const double sigma = gaussian_sigma(GaussianCalibration::analytic, eps, 1e-5, 4.0);
    CHECK(sigma * std::sqrt(400.0) == Approx(0.5 * 2.0).epsilon(1e-6));
  }
  CHECK(std::isnan(make("{name: vmf, epsilon: 1}")->epsilon_for_noise_share(0.5, 400)));
  CHECK(std::isnan(make("{name: laplace, epsilon: 1, clip_norm: 1}")->epsilon_for_noise_share(0.5, 400)));
}

TEST_CASE("the audit's neighbouring pairs are the claims' inputs", "[mechanisms]") {
  const NeighbouringPair directions = make("{name: vmf, epsilon: 2, beta: 0.5}")->neighbouring_pair(8, 0.3);
  CHECK(directions.claimed_epsilon == Approx(4.0 * 0.3));  // kappa * d_geo
  CHECK(directions.claimed_delta == 0);
  CHECK(at::dot(directions.x0, directions.x1).item<float>() == Approx(std::cos(0.3)).epsilon(1e-6));
  CHECK(at::norm(directions.x1).item<float>() == Approx(1.0).epsilon(1e-6));
  // Algorithm 1 is audited against the paper's eps * d_geo, though its claim() says none.
  CHECK(make("{name: vmf_tangent, epsilon: 2, beta: 1}")->neighbouring_pair(8, 0.3).claimed_epsilon == Approx(0.6));

  const NeighbouringPair clipped = make("{name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 2}")->neighbouring_pair(8, 0.3);
  CHECK(clipped.x0[0].item<float>() == 2.0f);
  CHECK(clipped.x1[0].item<float>() == -2.0f);
  CHECK(clipped.claimed_epsilon == 1.0);
  CHECK(clipped.claimed_delta == 1e-5);
}
