#include "federated/protocol.h"

#include <string>

#include "core/error.h"

namespace embpriv {

FederatedMethod parse_federated_method(std::string_view name) {
  for (const FederatedMethod m : {FederatedMethod::privateai, FederatedMethod::fedavg, FederatedMethod::fedadam,
                                  FederatedMethod::central, FederatedMethod::dp_ftrl, FederatedMethod::robust_dpfl,
                                  FederatedMethod::fafl}) {
    if (name == to_string(m)) return m;
  }
  throw Error("unknown federated method '" + std::string(name) +
              "'; valid: privateai, fedavg, fedadam, central, dp_ftrl, robust_dpfl, fafl");
}

const char* to_string(FederatedMethod method) {
  switch (method) {
    case FederatedMethod::fedavg: return "fedavg";
    case FederatedMethod::fedadam: return "fedadam";
    case FederatedMethod::central: return "central";
    case FederatedMethod::dp_ftrl: return "dp_ftrl";
    case FederatedMethod::robust_dpfl: return "robust_dpfl";
    case FederatedMethod::fafl: return "fafl";
    case FederatedMethod::privateai: break;
  }
  return "privateai";
}

double Protocol::train_locally(TextClassifier& local, const LabelledUnits& data, std::uint64_t seed) const {
  return local.train(data.ids, data.labels, options_.local, seed);
}

at::Tensor Protocol::release(const at::Tensor& local, const at::Tensor& global, std::uint64_t seed) const {
  return release_local_model(local, global, options_.dp, noise_.sigma, seed);
}

PublishedChoices published_choices(FederatedMethod method) {
  PublishedChoices c;  // PrivateAI's eq. (4): parameters clipped, classic sigma, eps per round
  if (method == FederatedMethod::dp_ftrl) {  // Kairouz et al. 2021: clipped updates, eps for the run
    c.clip = ClipTarget::update;
    c.budget = EpsilonBudget::run;
  }
  if (method == FederatedMethod::robust_dpfl) {  // Qi et al. 2024: RDP over the run
    c.calibration = NoiseCalibration::rdp;
    c.budget = EpsilonBudget::run;
  }
  return c;
}

FederatedNoise calibrated_noise(const LocalDpOptions& dp, double sensitivity, std::int64_t releases) {
  FederatedNoise noise;
  noise.sensitivity = sensitivity;
  noise.releases = releases;
  noise.epsilon_per_round = dp.budget == EpsilonBudget::round;
  if (dp.enabled) {
    noise.sigma = calibrated_sigma(dp.calibration, dp.epsilon, dp.delta, sensitivity,
                                   noise.epsilon_per_round ? 1 : releases);
  }
  return noise;
}

std::unique_ptr<Protocol> make_protocol(const FederatedOptions& o, const ParticipationSchedule& schedule,
                                        std::int64_t clients, const at::Tensor& initial) {
  switch (o.method) {
    case FederatedMethod::dp_ftrl: return make_dp_ftrl_protocol(o, schedule, clients, initial);
    case FederatedMethod::robust_dpfl: return make_robust_dpfl_protocol(o);
    case FederatedMethod::fafl: return make_fafl_protocol(o, initial.size(0));
    case FederatedMethod::fedavg:
    case FederatedMethod::central: return make_local_dp_protocol(o, Aggregator::fedavg);
    case FederatedMethod::privateai:
    case FederatedMethod::fedadam: break;
  }
  return make_local_dp_protocol(o, Aggregator::fedadam);
}

const char* aggregation_name(FederatedMethod method) {
  switch (method) {
    case FederatedMethod::fedavg:
    case FederatedMethod::central: return to_string(Aggregator::fedavg);
    case FederatedMethod::privateai:
    case FederatedMethod::fedadam: return to_string(Aggregator::fedadam);
    case FederatedMethod::dp_ftrl:
    case FederatedMethod::robust_dpfl:
    case FederatedMethod::fafl: break;
  }
  return to_string(method);
}

}  // namespace embpriv
