#pragma once
// Local differential privacy of a client's model before it leaves the device (PrivateAI
// paper, eq. (4)): clip to L2 norm theta, h(v; theta) = theta / max(theta, ||v||_2) * v, then add
// N(0, sigma^2 I). Two things may be clipped:
//   parameters (as published): the local model Theta_n^u itself; the release is
//     h(Theta_n^u) + noise. Neighbouring data sets move the clipped parameters by at most
//     Delta2 = 2 theta (sec. 2.4).
//   update (the common variant, McMahan et al. 2018 "Learning differentially private recurrent
//     language models"): the change Theta_n^u - Theta_n; the release is Theta_n + h(change) +
//     noise, Delta2 = 2 theta as well (both clipped changes lie in the theta-ball).
// sigma by calibrated_sigma: classic, sigma^2 = 8 theta^2 ln(1.25/delta) / eps^2 (the paper's
// formula; proven for eps < 1 only), analytic (Balle & Wang 2018, exact for every eps), or rdp
// (Robust-DPFL's: RDP composition and its conversion, sound and a little loose).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string_view>

#include "mechanisms/gaussian_calibration.h"

namespace embpriv {

enum class ClipTarget { parameters, update };
ClipTarget parse_clip_target(std::string_view name);  // "parameters" | "update"
const char* to_string(ClipTarget target);

// How sigma is found from (eps, delta): see calibrated_sigma.
enum class NoiseCalibration { classic, analytic, rdp };
NoiseCalibration parse_noise_calibration(std::string_view name);  // "classic" | "analytic" | "rdp"
const char* to_string(NoiseCalibration calibration);

// What dp.epsilon budgets: each release (round) or a client's whole run (run).
enum class EpsilonBudget { round, run };
EpsilonBudget parse_epsilon_budget(std::string_view name);  // "round" | "run"
const char* to_string(EpsilonBudget budget);

struct LocalDpOptions {
  bool enabled = true;  // false: clients send their models as they are (no clipping, no noise)
  double epsilon = 1.0;
  // No default of its own: the caller gives delta in (0, 1) (PrivateAI: 1 / |S|, S the union of
  // the clients' data); 0, "not given", is refused by calibrated_sigma.
  double delta = 0;
  double clip_norm = 1.0;  // theta
  ClipTarget clip = ClipTarget::parameters;
  NoiseCalibration calibration = NoiseCalibration::classic;
  EpsilonBudget budget = EpsilonBudget::round;
};

// The smallest sigma (by the calibration) with which `releases` Gaussian releases of L2
// sensitivity Delta2 are together (eps, delta)-DP:
//   classic, analytic: k releases of sigma compose exactly to one of sigma / sqrt(k) (Dong, Roth
//     & Su 2022, Cor. 3.3), so sigma = sqrt(k) x the one-release sigma
//     (mechanisms/gaussian_calibration.h);
//   rdp: a bisection on the noise multiplier of the RDP accountant's k-fold Gaussian
//     (accounting/renyi_dp.h; Robust-DPFL's calibration).
double calibrated_sigma(NoiseCalibration calibration, double epsilon, double delta, double l2_sensitivity,
                        std::int64_t releases);

// h(v; theta) of eq. (4).
at::Tensor clip_to_norm(const at::Tensor& v, double theta);
// sigma of the Gaussian noise of one release, sensitivity 2 theta, at dp.epsilon per release;
// 0 when disabled.
double local_dp_sigma(const LocalDpOptions& options);
// What client u sends: its local parameters [P] after training from global [P], clipped and
// noised; noise from Rng(seed, 0), so a seed gives the same release on every machine.
at::Tensor release_local_model(const at::Tensor& local, const at::Tensor& global, const LocalDpOptions& options,
                               std::uint64_t seed);
// The same with the noise's sigma given (a protocol that calibrates it otherwise, e.g. by RDP
// over the run: federated/robust_dpfl.h).
at::Tensor release_local_model(const at::Tensor& local, const at::Tensor& global, const LocalDpOptions& options,
                               double sigma, std::uint64_t seed);

}  // namespace embpriv
