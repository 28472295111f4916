#pragma once
// Settings of `embpriv bounds` (and of `embpriv run` on a config of type: bounds).
#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

struct BoundsConfig {
  std::vector<std::int64_t> dims{768, 4096};
  std::int64_t samples = 20000;  // rows per checked setting
  std::uint64_t seed = 1;
  // The grid of the vMF paper's Cor. 5.2 table (beta = 1), plus beta in {0.5, 2}.
  std::vector<double> epsilons{0.1, 0.2, 0.5, 1, 2, 5};
  std::vector<double> betas{0.5, 1, 2};
  // Extra settings of exact vMF (beta = 1) at kappa = f * d: on the grid above kappa << d, where
  // A_d(kappa) ~ kappa/d is near 0 and a sampler returning uniform directions would pass too.
  std::vector<double> vmf_kappa_over_d{0.25, 1, 4};
  double delta = 1e-5;       // gaussian and npgaussian
  double clip_norm = 1.0;    // C of gaussian (L2), laplace (L1) and npgaussian
  double confidence = 0.999; // of every interval check
  std::string out = "results/bounds.h5";
  std::string plot = "results/bounds.png";  // empty: no plot
  int threads = 0;                          // 0: LibTorch's default

  // Checks every value; throws embpriv::Error naming the first bad one.
  void validate() const;
  // The resolved settings as YAML (stored with the results).
  std::string to_yaml() const;
};

// Reads a YAML config of `type: bounds`; unknown keys are rejected with the valid list.
BoundsConfig parse_bounds_config(const std::string& yaml_text, const std::string& origin);

}  // namespace embpriv
