#pragma once
// One federated protocol (docs/privateai.md, "Baselines"): how much noise and over what
// sensitivity, what a client trains and sends, and how the server turns the round's releases
// into the next model. Each method of federated_options.h runs one, implemented beside its
// algorithm:
//   local DP (local_dp.cpp: PrivateAI, FedAvg, FedAdam, central): eq. (4) per release,
//     Delta2 = 2 theta, one release a round; FedAvg or FedAdam (eq. (5)) on the releases;
//   DP-FTRL (dp_ftrl.cpp): clipped updates, noiseless, to a trusted server whose tree noise is
//     one Gaussian mechanism for the whole run, of the schedule's sensitivity;
//   Robust-DPFL (robust_dpfl.cpp): eq. (4) releases, the noise-aware robust mean;
//   FAFL (fafl.cpp): STORM local steps preconditioned by the server's adaptive matrix, eq. (4).
// The noise follows dp.calibration and dp.budget the same way for every protocol
// (calibrated_noise), and each method's paper fixes their `published` values
// (published_choices).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "federated/federated_options.h"

namespace embpriv {

class Protocol {
 public:
  virtual ~Protocol() = default;
  // The noise of the run, for the accounting (composed_privacy.h).
  const FederatedNoise& noise() const { return noise_; }
  // A client's training of `local` (a copy of the global model) on its units; its last loss.
  virtual double train_locally(TextClassifier& local, const LabelledUnits& data, std::uint64_t seed) const;
  // What the client sends: by default eq. (4)'s release of its local parameters [P].
  virtual at::Tensor release(const at::Tensor& local, const at::Tensor& global, std::uint64_t seed) const;
  // The next global model from the global one [P] and the round's releases; sets
  // record.kept_releases.
  virtual at::Tensor aggregate(const at::Tensor& global, const std::vector<at::Tensor>& released,
                               RoundRecord& record) = 0;

 protected:
  Protocol(const FederatedOptions& options, const FederatedNoise& noise) : options_(options), noise_(noise) {}
  const FederatedOptions& options_;
  FederatedNoise noise_;
};

// dp.clip, dp.calibration and dp.budget as each method's own paper sets them (`published`):
// DP-FTRL clips updates (Kairouz et al. 2021), Robust-DPFL calibrates by RDP for the run (Qi et
// al. 2024), the others clip parameters with the classic sigma per round (PrivateAI eq. (4)).
struct PublishedChoices {
  ClipTarget clip = ClipTarget::parameters;
  NoiseCalibration calibration = NoiseCalibration::classic;
  EpsilonBudget budget = EpsilonBudget::round;
};
PublishedChoices published_choices(FederatedMethod method);

// The noise for `releases` Gaussian releases of L2 sensitivity `sensitivity` over a run:
// dp.epsilon budgets one release (dp.budget round) or all of them (run), calibrated by
// dp.calibration (local_dp.h: calibrated_sigma); sigma 0 without DP.
FederatedNoise calibrated_noise(const LocalDpOptions& dp, double sensitivity, std::int64_t releases);

// The method's protocol for a run on `clients` clients with that schedule, from the model's
// initial parameters [P].
std::unique_ptr<Protocol> make_protocol(const FederatedOptions& options, const ParticipationSchedule& schedule,
                                        std::int64_t clients, const at::Tensor& initial);
// The name of the server's aggregation, for the results (fedavg, fedadam, dp_ftrl, ...).
const char* aggregation_name(FederatedMethod method);

// The implementations (each in its algorithm's file).
std::unique_ptr<Protocol> make_local_dp_protocol(const FederatedOptions& options, Aggregator aggregator);
std::unique_ptr<Protocol> make_dp_ftrl_protocol(const FederatedOptions& options, const ParticipationSchedule& schedule,
                                                std::int64_t clients, const at::Tensor& initial);
std::unique_ptr<Protocol> make_robust_dpfl_protocol(const FederatedOptions& options);
std::unique_ptr<Protocol> make_fafl_protocol(const FederatedOptions& options, std::int64_t parameters);

}  // namespace embpriv
