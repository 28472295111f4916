#pragma once
// Robust-DPFL (Qi, Wang, Huang, "Towards the robustness of differentially private federated
// learning", AAAI 2024; PrivateAI's [13]) as embpriv reads it (docs/privateai.md, "Baselines":
// what the paper's text fixes and what was assumed):
//  1. Renyi-DP noise on the local model before upload: each client clips to theta (eq. (4),
//     dp.clip) and adds N(0, sigma^2 I) with sigma chosen so that the T releases a client can
//     make compose, by RDP (Mironov 2017) and the tight conversion, to the configured
//     (eps, delta): eps is the client's budget for the whole run, not per round (its published
//     dp.calibration rdp and dp.budget run: federated/protocol.h; local_dp.h: calibrated_sigma).
//  2. A noise-aware robust aggregation: the server cannot tell a poisoned release from a clean
//     one beyond the noise floor, so it keeps the releases whose median squared distance to the
//     others lies within the band that clean releases reach: for r_u = c_u + n_u, with the
//     clean parts at most 2 theta apart and n_u ~ N(0, sigma^2 I_P),
//       E ||r_u - r_v||^2 <= 4 theta^2 + 2 P sigma^2,
//       sd <= 2 sqrt(2 P) sigma^2 + 4 sqrt(2) theta sigma   (chi-squared of 2 sigma^2-variance
//     coordinates plus the cross term), and a release is kept when its median distance is at
//     most mean + z sd; the model is the mean of the kept releases (all of them when fewer than
//     half would be kept).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace embpriv {

struct RobustAggregate {
  at::Tensor model;      // [P], the mean of the kept releases
  std::int64_t kept = 0;
  double threshold = 0;  // on the median squared distance
};

// releases: each [P] (global + clipped update + noise); sigma: their noise; theta: the clip.
RobustAggregate noise_aware_mean(const std::vector<at::Tensor>& releases, double sigma, double clip_norm, double z);

}  // namespace embpriv
