#include "mechanisms/channel_composition.h"

#include <cmath>

#include "core/error.h"

namespace embpriv {

namespace {

// eps per radian of one channel, from the mechanism's own promise for it.
double channel_epsilon(const Mechanism& mechanism, Modality modality) {
  const PrivacyClaim claim = mechanism.claim(modality);
  EMBPRIV_CHECK(claim.kind == "metric_dp", "channel composition needs a metric-DP claim per channel; "
                                               << mechanism.name() << " promises '" << claim.kind << "'");
  return claim.epsilon;
}

}  // namespace

double composed_channel_loss(const Mechanism& mechanism, double d_visual, double d_text) {
  for (const double d : {d_visual, d_text}) {
    EMBPRIV_CHECK(std::isfinite(d) && d >= 0 && d <= M_PI,
                  "a geodesic distance between directions must be in [0, pi], got " << d);
  }
  // Independent channels: the density ratios multiply, so the losses add (Thm 6.1's last step).
  return channel_epsilon(mechanism, Modality::visual) * d_visual + channel_epsilon(mechanism, Modality::text) * d_text;
}

double composed_channel_epsilon(const Mechanism& mechanism) { return composed_channel_loss(mechanism, 1.0, 1.0); }

}  // namespace embpriv
