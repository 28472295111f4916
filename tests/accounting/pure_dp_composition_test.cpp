// Composition of eps-DP mechanisms (accounting/pure_dp_composition.h) against the closed forms,
// evaluated independently by tests/accounting/rdp_reference.py.
#include <cmath>

#include "accounting/pure_dp_composition.h"
#include "tests/catch.h"

using namespace embpriv;

TEST_CASE("Laplace composition: basic, Dwork-Rothblum-Vadhan, Kairouz-Oh-Viswanath", "[accounting]") {
  CHECK(basic_composition_epsilon(0.1, 100) == Approx(10));
  CHECK(advanced_composition_epsilon(0.1, 100, 1e-5) == Approx(5.850235093).epsilon(1e-9));
  CHECK(kairouz_composition_epsilon(0.1, 100, 1e-5) == Approx(5.298109662).epsilon(1e-9));
  CHECK(advanced_composition_epsilon(0.01, 10000, 1e-6) == Approx(6.261538478).epsilon(1e-9));
  CHECK(kairouz_composition_epsilon(0.01, 10000, 1e-6) == Approx(5.756517603).epsilon(1e-9));
  // At eps = 1 over 10 runs advanced composition is worse than basic (32.36 > 10): the account
  // keeps the basic bound.
  CHECK(advanced_composition_epsilon(1.0, 10, 1e-5) == Approx(32.35708958).epsilon(1e-9));
  const PureDpAccount large = compose_pure_dp(1.0, 10, 1e-5);
  CHECK(large.epsilon == Approx(10));
  CHECK(large.method.find("basic") != std::string::npos);
  const PureDpAccount small = compose_pure_dp(0.1, 100, 1e-5);
  CHECK(small.epsilon == Approx(5.298109662).epsilon(1e-9));
  CHECK(small.method.find("Kairouz") != std::string::npos);
  CHECK(compose_pure_dp(0.1, 100, 0).epsilon == Approx(10));  // delta 0: basic only
  CHECK_THROWS_WITH(compose_pure_dp(0, 10, 0), Catch::Contains("epsilon must be finite and > 0, got 0"));
  CHECK_THROWS_WITH(compose_pure_dp(1, 0, 0), Catch::Contains("rounds must be >= 1, got 0"));
  CHECK_THROWS_WITH(compose_pure_dp(1, 10, 1.5), Catch::Contains("delta must be in (0, 1), got 1.5"));
}
