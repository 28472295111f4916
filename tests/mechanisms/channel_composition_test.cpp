// vMF paper, Thm 6.1: the two channels compose by the sum of their budgets (as the theorem's proof
// derives), not by the max its statement gives (docs/errata.md).
#include "tests/catch.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "mechanisms/channel_composition.h"
#include "mechanisms/vmf.h"
#include "mechanisms/vmf_tangent.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// Exact vMF's largest log density ratio between inputs at angle t (kappa = eps / beta, beta = 1):
// sup over unit z of kappa (mu1 - mu2)^T z = kappa ||mu1 - mu2|| = kappa 2 sin(t / 2).
double vmf_worst_log_ratio(double kappa, double t) { return kappa * 2 * std::sin(t / 2); }

}  // namespace

TEST_CASE("Thm 6.1: the composed claim of the two channels is the sum eps_vis + eps_txt", "[mechanisms]") {
  const VmfMechanism vmf(/*epsilon=*/2, /*beta=*/1, /*alpha=*/3);  // eps_vis 2, eps_txt 6
  CHECK(composed_channel_epsilon(vmf) == 8.0);
  CHECK(composed_channel_loss(vmf, 0.5, 0.25) == 2.5);  // 2 x 0.5 + 6 x 0.25
  CHECK(composed_channel_loss(vmf, 0.5, 0) == 1.0);     // one channel moves: the max would hold here
  // The loss exact vMF really reaches when both channels move 1 rad: 8 x 2 sin(1/2) = 7.67, above the
  // theorem's max(2, 6) = 6 and below the composed 8.
  const double worst = vmf_worst_log_ratio(2, 1) + vmf_worst_log_ratio(6, 1);
  CHECK(worst > std::max(2.0, 6.0));
  CHECK(worst <= composed_channel_epsilon(vmf));
  // Small angles: the chord tends to the arc, so the sum is tight.
  const double t = 1e-3;
  CHECK(std::abs((vmf_worst_log_ratio(2, t) + vmf_worst_log_ratio(6, t)) / composed_channel_loss(vmf, t, t) - 1) < 1e-6);
}

TEST_CASE("channel composition refuses a mechanism without a metric-DP claim and bad distances", "[mechanisms]") {
  const VmfTangentMechanism tangent(1, 1, 2);
  CHECK_THROWS_WITH(composed_channel_epsilon(tangent), Contains("vmf_tangent promises 'none'"));
  const VmfMechanism vmf(1, 1, 2);
  CHECK_THROWS_WITH(composed_channel_loss(vmf, 4, 0), Contains("must be in [0, pi], got 4"));
}
