#pragma once
// What a client's DP adds up to over a run, from the noise the run really used
// (federated/federated_training.h, FederatedNoise), never from the eps the config requested.
// PrivateAI's eps is per client per round: every round a client takes part in, it releases its
// clipped model plus N(0, sigma^2 I), a Gaussian mechanism with Delta2 = 2 theta, i.e. noise
// multiplier sigma / (2 theta). Over k releases the losses compose (accounting/renyi_dp.h); the
// server picks the clients and sees each release, so sampling amplifies nothing against it, and a
// client may take part in every round: k = rounds bounds every client. DP-FTRL's tree is one
// Gaussian mechanism for the whole run (k = 1, the schedule's sensitivity). docs/privateai.md.
#include <cstdint>
#include <vector>

#include "federated/federated_training.h"

namespace embpriv {

struct ComposedClientPrivacy {
  double client_rounds_max = 0;   // rounds a client can take part in: all of them
  double client_rounds_mean = 0;  // releases per client on average in this run (sum of sampled / K)
  double epsilon_rdp = 0;         // total over the noise's releases at delta: RDP, tight conversion
  double epsilon_exact = 0;       // the same, exact: analytic Gaussian of sigma / sqrt(releases) (<= epsilon_rdp)
  double epsilon_pld = 0;         // the same by the PLD accountant: a guaranteed upper bound, >= epsilon_exact
  // The eps that the noise really gives, in the unit of the requested dp.epsilon: one release's
  // exact eps where dp.epsilon is per round, epsilon_exact where it is the run's. With the
  // classic sigma at eps >= 1 it exceeds the request (Dwork & Roth, Thm A.1 needs eps < 1).
  double epsilon_actual = 0;
};

// noise: what the run added (sigma 0: no DP, every total +inf); clients: K; rounds: the run's.
ComposedClientPrivacy composed_client_privacy(const FederatedNoise& noise, double delta, std::int64_t clients,
                                              const std::vector<RoundRecord>& rounds);
// Local DP's releases (eq. (4)): sigma per release, Delta2 = 2 clip_norm, one release a round.
ComposedClientPrivacy composed_client_privacy(double sigma, double clip_norm, double delta, std::int64_t clients,
                                              const std::vector<RoundRecord>& rounds);

}  // namespace embpriv
