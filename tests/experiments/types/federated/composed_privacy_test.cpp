// A client's total privacy over a federated run (experiments/types/federated/composed_privacy.h):
// sigma calibrated for (1, 1e-5) per round with theta = 1 (Delta2 = 2), over 10 rounds. Reference
// values from tests/accounting/rdp_reference.py: noise multiplier 3.7306316 (analytic eps 1 at
// 1e-5), 10 rounds: exact 3.6185916, RDP 3.9146489 (basic composition would say 10).
#include <cmath>

#include "experiments/types/federated/composed_privacy.h"
#include "mechanisms/gaussian_calibration.h"
#include "tests/catch.h"

using namespace embpriv;

TEST_CASE("federated: a client's eps composed over the rounds it can take part in", "[privateai][accounting]") {
  const double sigma = analytic_gaussian_sigma(1.0, 1e-5, 2.0);
  CHECK(sigma / 2 == Approx(3.7306316).epsilon(1e-6));
  std::vector<RoundRecord> rounds(10);
  for (std::size_t r = 0; r < rounds.size(); ++r) rounds[r].clients = r % 2 == 0 ? 3 : 2;  // 25 releases
  const ComposedClientPrivacy ten = composed_client_privacy(sigma, 1.0, 1e-5, 4, rounds);
  CHECK(ten.client_rounds_max == 10);
  CHECK(ten.client_rounds_mean == Approx(25.0 / 4));
  CHECK(ten.epsilon_exact == Approx(3.6185916).epsilon(1e-6));
  CHECK(ten.epsilon_rdp == Approx(3.9146489).epsilon(1e-6));
  // One round: the exact total is the per-round claim.
  const ComposedClientPrivacy one = composed_client_privacy(sigma, 1.0, 1e-5, 4, std::vector<RoundRecord>(1));
  CHECK(one.epsilon_exact == Approx(1.0).epsilon(1e-9));
  CHECK(one.epsilon_rdp > 1.0);
  // No DP: no finite total.
  CHECK(std::isinf(composed_client_privacy(0, 1.0, 1e-5, 4, rounds).epsilon_exact));
}
