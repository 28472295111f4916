#include "experiments/types/accountant/accountant_experiment.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "experiments/types/federated/composed_privacy.h"
#include "experiments/types/shared/federation_keys.h"
#include "federated/local_dp.h"

namespace embpriv {
namespace {

struct AccountantSettings {
  double epsilon, delta, client_fraction;
  std::int64_t rounds, clients;
};

using namespace federation_key;

// The federated type's keys (experiments/types/shared/federation_keys.h), except dp.delta: the
// federated default 0 means 1/|S|, which needs the data; here it is given, 0.0025 = 1/400,
// PrivateAI's |S| at the federated defaults (docs/privateai.md).
const Key<double> kDelta =
    number_key("dp.delta", "0.0025", "delta of each release and of the total (1/|S|)").above(0).below(1);

AccountantSettings read_settings(const YAML::Node& c) {
  return {kDpEpsilon(c), kDelta(c), kClientFraction(c), kRounds(c), kClients(c)};
}

// The calibrations, as the federated type's dp.calibration names them, and their column suffix.
const std::vector<std::pair<NoiseCalibration, std::string>>& calibrations() {
  static const std::vector<std::pair<NoiseCalibration, std::string>> c = {
      {NoiseCalibration::classic, "classic"}, {NoiseCalibration::analytic, "analytic"}};
  return c;
}

class AccountantExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "accountant"; }
  std::string summary() const override {
    return "a federated client's total eps over the rounds (local Gaussian DP, both calibrations), no training";
  }
  ConfigKeys keys() const override {
    return {kDpEpsilon, kDelta, kRounds, kClients, kClientFraction};
  }
  void check_point(const YAML::Node& config, const MechanismRegistry&) const override { read_settings(config); }

  std::vector<std::string> number_columns() const override {
    // No column repeats a key (rounds, clients, client_fraction): a swept key is a column of its
    // own (its path), and a result column of the same name could not be written beside it.
    std::vector<std::string> columns = {"epsilon", "delta", "client_rounds_max", "client_rounds_mean",
                                        "epsilon_basic_composition"};
    for (const auto& [calibration, suffix] : calibrations()) {
      for (const char* c : {"noise_multiplier_", "epsilon_one_release_exact_", "epsilon_composed_rdp_",
                            "epsilon_composed_exact_"}) {
        columns.push_back(std::string(c) + suffix);
      }
    }
    return columns;
  }
  std::vector<std::string> string_columns() const override { return {}; }
  double estimate_seconds(const YAML::Node&) const override {
    // A few root searches (analytic Gaussian) and one RDP minimisation: milliseconds.
    return 0.01;
  }

  MemoryEstimate estimate_memory(const YAML::Node& config) const override {
    // One record per round (RoundRecord), and the Renyi curve over its orders (kilobytes).
    const std::int64_t rounds = kRounds(config);
    constexpr double kCurveBytes = 1e5;
    MemoryEstimate m;
    m.working_bytes = static_cast<double>(rounds) * sizeof(RoundRecord) + kCurveBytes;
    m.size_keys = {kRounds.path()};
    m.what = std::to_string(rounds) + " rounds' records and the Renyi DP curve";
    return m;
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    const std::string& x = kDpEpsilon.path();
    if (std::find(swept.begin(), swept.end(), x) == swept.end()) return {};
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != x) groups.push_back(s);
    }
    std::vector<PlotRequest> plots;
    for (const auto& [calibration, suffix] : calibrations()) {
      for (const std::string& bound : {std::string("exact"), std::string("rdp")}) {
        PlotRequest p{"total_" + bound + "_" + suffix, x, "epsilon_composed_" + bound + "_" + suffix,
                      groups, "epsilon_basic_composition", true, true,
                      "total eps per client (" + bound + "), " + suffix + " sigma; dashed: rounds x eps", "",
                      "total_versus_round"};
        p.theory_label = "basic composition";
        plots.push_back(p);
      }
    }
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const AccountantSettings s = read_settings(input.config);
    // The rounds as the federated type records them: round(fraction K) clients each, at least
    // one (federated/federated_training.cpp, sample_clients). Only client_rounds_mean reads the
    // count: the server sees every release, so the worst-case total is over all rounds.
    const auto sampled = std::clamp<std::int64_t>(
        std::llround(s.client_fraction * static_cast<double>(s.clients)), 1, s.clients);
    std::vector<RoundRecord> rounds(static_cast<std::size_t>(s.rounds));
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      rounds[r].round = static_cast<std::int64_t>(r + 1);
      rounds[r].clients = sampled;
    }
    PointResult result;
    result.set("epsilon", s.epsilon);
    result.set("delta", s.delta);
    result.set("epsilon_basic_composition", static_cast<double>(s.rounds) * s.epsilon);
    std::ostringstream headline;
    headline.precision(4);
    for (const auto& [calibration, suffix] : calibrations()) {
      LocalDpOptions dp;
      dp.epsilon = s.epsilon;
      dp.delta = s.delta;
      dp.clip_norm = 1.0;  // theta: the totals depend on sigma / (2 theta) only
      dp.calibration = calibration;
      const double sigma = local_dp_sigma(dp);
      const ComposedClientPrivacy total = composed_client_privacy(sigma, dp.clip_norm, s.delta, s.clients, rounds);
      const ComposedClientPrivacy one =
          composed_client_privacy(sigma, dp.clip_norm, s.delta, s.clients, std::vector<RoundRecord>(1));
      if (suffix == calibrations().front().second) {
        result.set("client_rounds_max", total.client_rounds_max);
        result.set("client_rounds_mean", total.client_rounds_mean);
      }
      result.set("noise_multiplier_" + suffix, sigma / (2 * dp.clip_norm));
      result.set("epsilon_one_release_exact_" + suffix, one.epsilon_exact);
      result.set("epsilon_composed_rdp_" + suffix, total.epsilon_rdp);
      result.set("epsilon_composed_exact_" + suffix, total.epsilon_exact);
      headline << suffix << ": total=" << total.epsilon_exact << " (rdp " << total.epsilon_rdp << ") ";
    }
    result.headline = headline.str();
    return result;
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_accountant_experiment() { return std::make_unique<AccountantExperiment>(); }

}  // namespace embpriv
