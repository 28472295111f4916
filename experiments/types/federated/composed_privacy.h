#pragma once
// What a client's local DP (federated/local_dp.h) adds up to over a run. PrivateAI's eps is per
// client per round: every round a client takes part in, it releases its clipped model plus
// N(0, sigma^2 I), a Gaussian mechanism with Delta2 = 2 theta, i.e. noise multiplier
// sigma / (2 theta). Over k releases the losses compose (accounting/renyi_dp.h); the server
// picks the clients and sees each release, so sampling amplifies nothing against it, and a
// client may take part in every round: k = rounds bounds every client. docs/privateai.md.
#include <cstdint>
#include <vector>

#include "federated/federated_training.h"

namespace embpriv {

struct ComposedClientPrivacy {
  double client_rounds_max = 0;   // rounds a client can take part in: all of them
  double client_rounds_mean = 0;  // releases per client on average in this run (sum of sampled / K)
  double epsilon_rdp = 0;         // total over client_rounds_max releases at delta: RDP, tight conversion
  double epsilon_exact = 0;       // the same, exact: analytic Gaussian of sigma / sqrt(rounds) (<= epsilon_rdp)
};

// sigma: the noise of one release (0: no DP, both totals +inf); clip_norm: theta; clients: K.
ComposedClientPrivacy composed_client_privacy(double sigma, double clip_norm, double delta, std::int64_t clients,
                                              const std::vector<RoundRecord>& rounds);

}  // namespace embpriv
