// Tests of metrics/ks_test.h: the one-sample KS test with the DKW-Massart critical value.
#include "metrics/ks_test.h"

#include "tests/catch.h"
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/error.h"

namespace {

// n uniforms on [0, 1) from a fixed-seed mt19937_64 (an engine whose output the C++ standard
// fixes; std:: distributions are not fixed, so the mapping to [0, 1) is done here).
std::vector<double> uniforms(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> u(n);
  for (double& value : u) value = static_cast<double>(engine() >> 11) * 0x1.0p-53;
  return u;
}

double uniform_cdf(double x) { return std::min(1.0, std::max(0.0, x)); }

}  // namespace

TEST_CASE("ks_critical_value is the DKW-Massart bound", "[ks]") {
  // 2 exp(-2 n c^2) = alpha: n = 100, alpha = 0.05 gives sqrt(ln(40) / 200) = 0.135810...
  CHECK(embpriv::ks_critical_value(100, 0.05) == Approx(0.13581015157406193).epsilon(1e-14));
  const double c = embpriv::ks_critical_value(123456, 1e-6);
  CHECK(2.0 * std::exp(-2.0 * 123456 * c * c) == Approx(1e-6).epsilon(1e-12));
  CHECK_THROWS_AS(embpriv::ks_critical_value(0, 0.05), embpriv::Error);
  CHECK_THROWS_WITH(embpriv::ks_critical_value(10, 1.0), Catch::Contains("alpha"));
}

TEST_CASE("ks_test computes D_n = sup |F_n - F| exactly on a small sample", "[ks]") {
  // Samples 0.7, 0.1, 0.4 (unsorted on purpose) against U(0, 1): the one-sided gaps are
  // 1/3 - 0.1, 0.1, 2/3 - 0.4, 0.4 - 1/3, 1 - 0.7, 0.7 - 2/3; the largest is 0.3.
  const embpriv::KsResult result = embpriv::ks_test({0.7, 0.1, 0.4}, uniform_cdf, 0.05);
  CHECK(result.statistic == Approx(0.3).epsilon(1e-15));
  CHECK(result.n == 3);
  CHECK(result.critical == embpriv::ks_critical_value(3, 0.05));
  // Just below a sample the empirical CDF is (i-1)/n: 0.9, 0.9, 0.9 against U(0, 1) is off
  // by 0.9 there.
  CHECK(embpriv::ks_test({0.9, 0.9, 0.9}, uniform_cdf, 0.05).statistic ==
        Approx(0.9).epsilon(1e-15));
}

TEST_CASE("ks_test accepts the right CDF and rejects a wrong one", "[ks][stat]") {
  // alpha = 1e-6 and a fixed seed: the acceptance below fails with probability <= 1e-6 over
  // seeds. n = 1e5 gives critical value 0.0085.
  const std::vector<double> u = uniforms(100000, 20240601);
  const embpriv::KsResult right = embpriv::ks_test(u, uniform_cdf, 1e-6);
  CHECK_FALSE(right.reject());
  // Exponential samples by inversion against the exponential CDF.
  std::vector<double> e(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) e[i] = -std::log1p(-u[i]);
  CHECK_FALSE(embpriv::ks_test(e, [](double x) { return -std::expm1(-x); }, 1e-6).reject());
  // Power: U(0, 1) against F(x) = x^1.1 (sup distance 0.035, four times the critical value),
  // and the exponential samples against rate 1.05 (sup distance 0.018).
  const embpriv::KsResult wrong =
      embpriv::ks_test(u, [](double x) { return std::pow(uniform_cdf(x), 1.1); }, 1e-6);
  CHECK(wrong.reject());
  CHECK(embpriv::ks_test(e, [](double x) { return -std::expm1(-1.05 * x); }, 1e-6).reject());
}

TEST_CASE("ks_test's false-alarm rate is at most alpha and not far below", "[ks][stat]") {
  // 2000 independent tests of n = 50 true uniforms at alpha = 0.05. DKW-Massart guarantees a
  // rate <= 0.05, and the bound is nearly tight (this seed gives 90 rejections, 4.5%). The
  // count must lie below 100 + 5 sd (~149) and above 20: ln(1/alpha) in place of ln(2/alpha)
  // (rate ~0.1, ~200 rejections) or 1/n in place of 1/(2n) under the root (rate ~0.001) both
  // leave this range.
  std::mt19937_64 engine(7);
  int rejections = 0;
  for (int t = 0; t < 2000; ++t) {
    std::vector<double> u(50);
    for (double& value : u) value = static_cast<double>(engine() >> 11) * 0x1.0p-53;
    rejections += embpriv::ks_test(u, uniform_cdf, 0.05).reject();
  }
  INFO("rejections: " << rejections << " of 2000");
  CHECK(rejections <= 149);
  CHECK(rejections >= 20);
}

TEST_CASE("ks_test_sorted_cdf equals ks_test", "[ks]") {
  const std::vector<double> u = uniforms(1000, 3);
  const embpriv::KsResult a = embpriv::ks_test(u, uniform_cdf, 1e-3);
  const embpriv::KsResult b = embpriv::ks_test_sorted_cdf(
      u,
      [](const std::vector<double>& sorted) {
        for (std::size_t i = 1; i < sorted.size(); ++i) REQUIRE(sorted[i - 1] <= sorted[i]);
        std::vector<double> values(sorted.size());
        for (std::size_t i = 0; i < sorted.size(); ++i) values[i] = uniform_cdf(sorted[i]);
        return values;
      },
      1e-3);
  CHECK(a.statistic == b.statistic);
  CHECK(a.critical == b.critical);
}

TEST_CASE("ks_test rejects bad input", "[ks]") {
  CHECK_THROWS_AS(embpriv::ks_test({}, uniform_cdf, 0.05), embpriv::Error);
  CHECK_THROWS_WITH(embpriv::ks_test({0.1, std::nan("")}, uniform_cdf, 0.05),
                    Catch::Contains("not finite"));
  CHECK_THROWS_WITH(embpriv::ks_test({0.1}, [](double) { return 1.5; }, 0.05),
                    Catch::Contains("[0, 1]"));
  CHECK_THROWS_AS(embpriv::ks_test({0.1}, uniform_cdf, 0.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::ks_test_sorted_cdf(
                      {0.1, 0.2}, [](const std::vector<double>&) { return std::vector<double>{0.5}; },
                      0.05),
                  embpriv::Error);
}
