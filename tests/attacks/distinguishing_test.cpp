// Distinguishing games (attacks/distinguishing.h): the empirical epsilon of a mechanism with a
// known privacy loss (randomised response, eps = ln 3) is estimated near its value and bounded
// below it; a broken one (eps = ln 9) is bounded above ln 3 (fixed seed; confidence 0.999).
#include <ATen/ATen.h>

#include <cmath>

#include "attacks/distinguishing.h"
#include "core/rng.h"
#include "tests/catch.h"

namespace {

// Randomised response: report the secret bit with probability p, else flip it. O = "reports 1".
std::int64_t reports_of_one(bool secret, double p, std::int64_t trials, std::uint64_t seed) {
  embpriv::Rng rng(seed, secret ? 1 : 0);
  std::int64_t ones = 0;
  for (std::int64_t t = 0; t < trials; ++t) ones += (rng.uniform() < p) == secret;
  return ones;
}

}  // namespace

TEST_CASE("empirical epsilon of randomised response: near ln 3, bound below it; broken above", "[attacks]") {
  const std::int64_t n = 200000;
  const double p = 0.75;  // eps = ln(p / (1 - p)) = ln 3
  const auto fair = embpriv::empirical_epsilon(reports_of_one(true, p, n, 1), n, reports_of_one(false, p, n, 2), n, 0.999);
  CHECK(fair.estimate == Approx(std::log(3.0)).margin(0.03));
  CHECK(fair.lower_bound <= std::log(3.0));
  CHECK(fair.lower_bound > std::log(3.0) - 0.06);
  const double broken = 0.9;  // eps = ln 9
  const auto leak = embpriv::empirical_epsilon(reports_of_one(true, broken, n, 1), n,
                                               reports_of_one(false, broken, n, 2), n, 0.999);
  CHECK(leak.lower_bound > std::log(3.0) + 0.5);
  // Separation without noise: the estimate is infinite, the bound limited by the trials.
  const auto exact = embpriv::empirical_epsilon(1000, 1000, 0, 1000, 0.999);
  CHECK(std::isinf(exact.estimate));
  CHECK(exact.lower_bound > 4.5);  // ln(upper bound of 0 of 1000 at 0.999: 0.0076) = -4.88
  CHECK(exact.lower_bound < std::log(1000.0) + 1);
  CHECK_THROWS_WITH(embpriv::empirical_epsilon(5, 4, 0, 4, 0.9), Catch::Contains("hits <= trials"));
}

TEST_CASE("the nearest-secret test counts outputs nearer to the first secret", "[attacks]") {
  const at::Tensor a = at::tensor({1.0, 0.0}), b = at::tensor({0.0, 1.0});
  const at::Tensor outputs = at::tensor({1.0, 0.2, 0.1, 3.0, 2.0, 1.9, -1.0, -3.0}).reshape({4, 2});
  // Rows 0, 2 and 3 (row 3: cosine -0.32 with a, -0.95 with b); row 1 is nearer b.
  CHECK(embpriv::count_nearer_to_first(outputs, a, b) == 3);
  CHECK_THROWS_WITH(embpriv::count_nearer_to_first(outputs, at::ones({3}), b), Catch::Contains("[R, d]"));
}
