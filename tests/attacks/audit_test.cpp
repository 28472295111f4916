// The privacy audit (attacks/audit.h) on samplers whose privacy loss is known exactly: a
// Laplace mechanism (pure eps = Delta / b) is bounded below its eps and near it, the same with
// half the noise is bounded above it, and a mechanism that puts every output at a fixed angle
// from its input (Algorithm 1's flaw) gets a bound that grows with the trials. Fixed seeds;
// confidence 0.95 (a correct mechanism lands above its eps with probability <= 5%; the seeds
// here are fixed, so the outcome is too).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attacks/audit.h"
#include "core/rng.h"
#include "mechanisms/gaussian_calibration.h"
#include "tests/catch.h"

namespace {

// y = x + Laplace(b) in every coordinate, d = 3.
embpriv::OutputSampler laplace_sampler(const at::Tensor& x0, const at::Tensor& x1, double b) {
  return [=](int which, std::int64_t trials, std::uint64_t seed) {
    const at::Tensor x = which == 0 ? x0 : x1;
    at::Tensor y = x.to(at::kDouble).unsqueeze(0).repeat({trials, 1}).contiguous();
    double* p = y.data_ptr<double>();
    embpriv::Rng rng(seed, 0);
    for (std::int64_t i = 0; i < y.numel(); ++i) p[i] += b * rng.laplace();
    return y;
  };
}

// Every output at angle 0.3 from its input, in a random direction of the orthogonal plane.
embpriv::OutputSampler fixed_angle_sampler(const at::Tensor& x0, const at::Tensor& x1) {
  return [=](int which, std::int64_t trials, std::uint64_t seed) {
    const at::Tensor x = (which == 0 ? x0 : x1).to(at::kDouble);
    at::Tensor y = at::empty({trials, 3}, at::kDouble);
    embpriv::Rng rng(seed, 0);
    for (std::int64_t t = 0; t < trials; ++t) {
      at::Tensor v = at::tensor({rng.normal(), rng.normal(), rng.normal()}, at::kDouble);
      v = v - (v * x).sum() * x;
      y[t] = std::cos(0.3) * x + std::sin(0.3) * v / v.norm();
    }
    return y;
  };
}

}  // namespace

TEST_CASE("audit of a Laplace mechanism: below its eps and near it; halved noise above", "[attacks][audit]") {
  const at::Tensor x0 = at::tensor({1.0, 0.0, 0.0}), x1 = at::tensor({-1.0, 0.0, 0.0});
  embpriv::AuditOptions options;
  options.trials = 20000;
  const double eps = 1.0;  // Delta1 = 2, b = 2 / eps
  const embpriv::AuditResult fair = embpriv::audit_pair(laplace_sampler(x0, x1, 2.0 / eps), x0, x1, options, 3);
  INFO(fair.test << " " << fair.hits_x0 << " " << fair.hits_x1);
  CHECK(fair.eps_lower_bound <= eps);
  CHECK(fair.eps_lower_bound > 0.8 * eps);  // the projection test reaches the loss at half the mass
  CHECK(fair.test == "projection");
  const embpriv::AuditResult broken = embpriv::audit_pair(laplace_sampler(x0, x1, 1.0 / eps), x0, x1, options, 3);
  CHECK(broken.eps_lower_bound > eps);  // half the noise: the true loss is 2 eps
  CHECK(broken.eps_lower_bound <= 2 * eps);
}

TEST_CASE("audit of a fixed-angle mechanism: the bound grows with the trials", "[attacks][audit]") {
  const at::Tensor x0 = at::tensor({1.0, 0.0, 0.0});
  const at::Tensor x1 = at::tensor({std::cos(0.5), std::sin(0.5), 0.0});
  embpriv::AuditOptions options;
  options.trials = 500;
  const double few = embpriv::audit_pair(fixed_angle_sampler(x0, x1), x0, x1, options, 5).eps_lower_bound;
  options.trials = 5000;
  const embpriv::AuditResult many = embpriv::audit_pair(fixed_angle_sampler(x0, x1), x0, x1, options, 5);
  CHECK(few > 4);
  CHECK(many.eps_lower_bound > few + 2);  // about ln(trials): no finite eps holds
  CHECK(many.hits_x1 < 0.01 * static_cast<double>(many.hits_x0));  // the test nearly never fires under x1
}

TEST_CASE("audit bound: one-sided Clopper-Pearson bounds, each failing with (1 - confidence) / 2", "[attacks][audit]") {
  // References from scipy.stats.beta (not from this code): with a = (1 - 0.95) / 2,
  // ln(beta.ppf(a, k1, n - k1 + 1) / beta.ppf(1 - a, k2 + 1, n - k2)).
  // 500 of 1000 against 100 of 1000:
  CHECK(embpriv::audit_log_ratio_bound(500, 1000, 100, 1000, 0.95, 0) == Approx(1.3597527).margin(1e-6));
  // ... with delta = 0.1 subtracted from the lower bound:
  CHECK(embpriv::audit_log_ratio_bound(500, 1000, 100, 1000, 0.95, 0.1) == Approx(1.1196858).margin(1e-6));
  // A perfect test at 300,000 trials: ln(0.025^(1/n) / (1 - 0.025^(1/n))) = 11.3062 ~ ln(n / 3.689)
  // (tails of (1 - c) / 4 would give 11.134).
  CHECK(embpriv::audit_log_ratio_bound(300000, 300000, 0, 300000, 0.95, 0) == Approx(11.3062089).margin(1e-5));
  CHECK(embpriv::audit_log_ratio_bound(300000, 300000, 0, 300000, 0.95, 0) ==
        Approx(std::log(300000 / -std::log(0.025))).margin(1e-4));
}

TEST_CASE("audit bound and bad input", "[attacks][audit]") {
  // 0.5 of 1000 against 0.1 of 1000: ln(5) = 1.61 at most; the intervals take some of it.
  const double bound = embpriv::audit_log_ratio_bound(500, 1000, 100, 1000, 0.95, 0);
  CHECK(bound < std::log(5.0));
  CHECK(bound > std::log(5.0) - 0.4);
  CHECK(embpriv::audit_log_ratio_bound(500, 1000, 100, 1000, 0.95, 0.1) < bound);  // delta is subtracted
  const at::Tensor x = at::tensor({1.0, 0.0});
  embpriv::AuditOptions options;
  options.trials = 5;
  const auto sampler = [](int, std::int64_t t, std::uint64_t) { return at::zeros({t, 2}); };
  CHECK_THROWS_WITH(embpriv::audit_pair(sampler, x, -x, options, 1), Catch::Contains("trials must be >= 10"));
  options.trials = 100;
  CHECK_THROWS_WITH(embpriv::audit_pair(sampler, x, x, options, 1), Catch::Contains("two different vectors"));
}

TEST_CASE("audit: the four sides of a test are named, and the chosen one gives the bound", "[attacks][audit]") {
  // 500 of 1000 under x0 against 100 of 1000 under x1: each side is the ratio it names.
  using embpriv::TestSide;
  const auto bound = [](TestSide side) { return embpriv::side_log_ratio_bound(side, 500, 100, 1000, 0.95, 0); };
  CHECK(bound(TestSide::event_favours_x0) == embpriv::audit_log_ratio_bound(500, 1000, 100, 1000, 0.95, 0));
  CHECK(bound(TestSide::event_favours_x1) == embpriv::audit_log_ratio_bound(100, 1000, 500, 1000, 0.95, 0));
  CHECK(bound(TestSide::complement_favours_x0) == embpriv::audit_log_ratio_bound(500, 1000, 900, 1000, 0.95, 0));
  CHECK(bound(TestSide::complement_favours_x1) == embpriv::audit_log_ratio_bound(900, 1000, 500, 1000, 0.95, 0));
  CHECK(std::string(embpriv::test_side_name(TestSide::complement_favours_x1)) == "complement_favours_x1");
  // Laplace noise with x0 = +e1: the projection test fires more under x0.
  const at::Tensor x0 = at::tensor({1.0, 0.0, 0.0}), x1 = at::tensor({-1.0, 0.0, 0.0});
  embpriv::AuditOptions options;
  options.trials = 20000;
  const embpriv::AuditResult r = embpriv::audit_pair(laplace_sampler(x0, x1, 2.0), x0, x1, options, 3);
  INFO(embpriv::test_side_name(r.side));
  CHECK((r.side == TestSide::event_favours_x0 || r.side == TestSide::complement_favours_x1));
  CHECK(r.eps_lower_bound ==
        std::max(0.0, embpriv::side_log_ratio_bound(r.side, r.hits_x0, r.hits_x1, r.trials, 0.95, 0)));
}

namespace {

// y = x + N(0, sigma^2) in every coordinate, d = 3.
embpriv::OutputSampler gaussian_sampler(const at::Tensor& x0, const at::Tensor& x1, double sigma) {
  return [=](int which, std::int64_t trials, std::uint64_t seed) {
    const at::Tensor x = which == 0 ? x0 : x1;
    at::Tensor y = x.to(at::kDouble).unsqueeze(0).repeat({trials, 1}).contiguous();
    double* p = y.data_ptr<double>();
    embpriv::Rng rng(seed, 0);
    for (std::int64_t i = 0; i < y.numel(); ++i) p[i] += sigma * rng.normal();
    return y;
  };
}

}  // namespace

TEST_CASE("audit: the verdict reads the largest sound bound, and names it", "[attacks][audit]") {
  // The Gaussian mechanism claimed at (8, 1e-5) for x0 = e1, x1 = -e1 (L2 distance 2) but run
  // with half its sigma: the pair's true eps is about 17. At 20,000 trials no Clopper-Pearson
  // bound can exceed ln(20000 / 3.69) = 8.6, so only the Gaussian-DP lower end convicts it.
  const at::Tensor x0 = at::tensor({1.0, 0.0, 0.0}), x1 = at::tensor({-1.0, 0.0, 0.0});
  const double claimed = 8, delta = 1e-5;
  const double sigma = embpriv::analytic_gaussian_sigma(claimed, delta, 2.0) / 2;
  embpriv::AuditOptions options;
  options.trials = 20000;
  options.delta = delta;
  options.gaussian_noise = true;
  const embpriv::AuditResult r = embpriv::audit_pair(gaussian_sampler(x0, x1, sigma), x0, x1, options, 7);
  INFO("selected " << r.eps_lower_bound << ", all thresholds " << r.eps_lower_bound_all_thresholds << ", gdp "
                   << r.gdp.eps_low << ", best " << r.best.eps_lower_bound << " (" << r.best.name << ")");
  CHECK(r.eps_lower_bound < claimed);
  CHECK(r.eps_lower_bound_all_thresholds < claimed);
  CHECK(r.best.name == "gdp_eps_low");
  CHECK(r.best.bounds == 3);
  CHECK(r.best.eps_lower_bound > claimed);
  // Each of the 3 bounds at confidence 1 - 0.05 / 3: below the one at 0.95, and below the truth.
  CHECK(r.best.eps_lower_bound < r.gdp.eps_low);
  CHECK(r.best.eps_lower_bound <= embpriv::gdp_epsilon(2 / sigma, delta));
  // Without the promise of Gaussian noise the Gaussian-DP end is no bound: 2 bounds, none above.
  options.gaussian_noise = false;
  const embpriv::AuditResult unknown = embpriv::audit_pair(gaussian_sampler(x0, x1, sigma), x0, x1, options, 7);
  CHECK(unknown.best.bounds == 2);
  CHECK(unknown.best.name != "gdp_eps_low");
  CHECK(unknown.best.eps_lower_bound < claimed);
  CHECK(unknown.best.eps_lower_bound <= std::max(unknown.eps_lower_bound, unknown.eps_lower_bound_all_thresholds));
  // At delta = 0 no Gaussian-DP bound applies, even with Gaussian noise.
  options.gaussian_noise = true;
  options.delta = 0;
  CHECK(embpriv::audit_pair(gaussian_sampler(x0, x1, sigma), x0, x1, options, 7).best.bounds == 2);
}
