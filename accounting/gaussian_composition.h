#pragma once
// The exact total eps of T rounds of the (unsampled) Gaussian mechanism: T releases with noise
// multiplier sigma compose exactly to one release with sigma / sqrt(T) (Gaussian DP: Dong, Roth
// & Su 2022, Cor. 3.3, mu-GDP composes to sqrt(T) mu with mu = 1 / sigma), whose eps at delta is
// the analytic Gaussian's (Balle & Wang 2018, Thm 8; core/gaussian_privacy_profile.h). The
// accountant's exact line and the federated type's exact column both come from here.
#include <cstdint>

namespace embpriv {

// sigma: noise standard deviation over the L2 sensitivity; rounds >= 1; delta in (0, 1).
// 0 when the composition is (0, delta)-DP. Throws embpriv::Error naming sigma and the rounds
// when eps would exceed 1e12.
double gaussian_composition_epsilon(double noise_multiplier, std::int64_t rounds, double delta);

}  // namespace embpriv
