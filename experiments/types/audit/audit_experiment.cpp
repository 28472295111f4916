#include "experiments/types/audit/audit_experiment.h"

#include <ATen/ATen.h>

#include <cmath>
#include <sstream>

#include "attacks/audit.h"
#include "experiments/types/audit/audit_trials_figure.h"
#include "experiments/types/audit/audit_keys.h"
#include "experiments/types/audit/audit_memory.h"
#include "experiments/types/shared/data_keys.h"
#include "experiments/engine/mechanism_yaml.h"
#include "mechanisms/mechanism.h"

namespace embpriv {
namespace {

using namespace audit_key;

struct AuditSettings {
  std::int64_t dim, trials;
  double distance, confidence;
  AuditBreak broken;
};

AuditSettings read_settings(const YAML::Node& c) {
  return {kDim(c), kTrials(c), kDistance(c), kConfidence(c), kBreak(c)};
}

class AuditExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "audit"; }
  std::string summary() const override {
    return "privacy audit: an empirical epsilon lower bound next to the claimed epsilon";
  }
  ConfigKeys keys() const override {
    return {
        ConfigKey::open_map("mechanism", "{name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 1}",
                            "the audited mechanism and its keys (embpriv mechanisms)"),
        kDim, kTrials, kDistance, kConfidence, kBreak,
    };
  }
  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    read_settings(config);
    point_mechanism(config, registry);
  }

  std::vector<std::string> number_columns() const override {
    return {"epsilon", "claimed_epsilon", "claimed_delta", "eps_lower_bound", "eps_estimate", "above_claim",
            "hits_x0", "hits_x1", "trials", "threshold", "eps_lower_bound_all_thresholds", "gdp_mu",
            "gdp_mu_low", "gdp_mu_high", "gdp_eps", "gdp_eps_low", "eps_lower_bound_best"};
  }
  std::vector<std::string> string_columns() const override {
    return {"mechanism_name", "claim_kind", "test", "broken", "above_claim_by"};
  }
  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return audit_memory(config); }
  double estimate_seconds(const YAML::Node& config) const override {
    const AuditSettings s = read_settings(config);
    // The mechanism runs 4 x trials times (two inputs, two halves: selection and measurement)
    // on d values each, at a rate set by hand. docs/attacks.md measured about 2 s for 300,000
    // trials at d = 4 (~4e-7 s per value), twice this rate's estimate.
    constexpr double kFixedSeconds = 0.1;
    constexpr double kRunsPerTrial = 4.0;
    constexpr double kSecondsPerValue = 2e-7;
    return kFixedSeconds + kRunsPerTrial * static_cast<double>(s.trials * s.dim) * kSecondsPerValue;
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != kMechanismEpsilonPath && s != kTrials.path()) groups.push_back(s);
    }
    std::vector<PlotRequest> plots;
    PlotRequest versus_claim{"lower_bound", "claimed_epsilon", "eps_lower_bound", groups, "claimed_epsilon", true,
                             true, "audit: empirical eps lower bound vs the claimed eps (dashed: y = x)", "", ""};
    versus_claim.theory_label = "claimed (y = x)";
    plots.push_back(versus_claim);
    if (std::find(swept.begin(), swept.end(), kTrials.path()) != swept.end()) {
      PlotRequest versus_trials{"versus_trials", kTrials.path(), "eps_lower_bound", groups, "claimed_epsilon", true,
                                false, "audit: lower bound vs the number of trials (dashed: claimed eps)", "", ""};
      versus_trials.theory_label = "claimed";
      plots.push_back(versus_trials);
    }
    return plots;
  }

  // The lower bounds against the number of trials, when the run has more than one
  // (configs/paper/audit_trials.yaml).
  std::vector<std::string> draw_figures(const ResultsTable& table, const std::string& stem) const override {
    return plot_audit_bounds_versus_trials(table, stem);
  }

  PointResult run_point(const PointInput& input) const override {
    const AuditSettings s = read_settings(input.config);
    const auto mechanism = point_mechanism(input.config, input.mechanisms);
    const std::string name = mechanism->name();
    const PrivacyClaim claim = mechanism->claim();
    // The two neighbouring inputs of the claim, and what it promises between them.
    const NeighbouringPair pair = mechanism->neighbouring_pair(s.dim, s.distance);
    const at::Tensor& x0 = pair.x0;
    const at::Tensor& x1 = pair.x1;
    const double claimed = pair.claimed_epsilon, delta = pair.claimed_delta;

    // The broken variant: the same claim, half the noise.
    const bool halve = s.broken == AuditBreak::halve_noise;
    std::unique_ptr<Mechanism> run = nullptr;
    if (halve && !mechanism->noise_is_additive()) {
      YAML::Node doubled = YAML::Clone(input.config["mechanism"]);
      doubled["epsilon"] = 2 * mechanism->epsilon();
      run = make_mechanism(doubled, input.mechanisms);
    }
    const Mechanism& used = run ? *run : *mechanism;
    const double noise_factor = halve && mechanism->noise_is_additive() ? 0.5 : 1.0;
    const OutputSampler sample = [&](int which, std::int64_t trials, std::uint64_t seed) {
      const at::Tensor x = (which == 0 ? x0 : x1).unsqueeze(0).expand({trials, s.dim}).contiguous();
      const at::Tensor y = used.perturb(x, RandomStream{seed, 0});
      // Additive mechanisms: both inputs lie on the clipping sphere, so y - x is the noise.
      return noise_factor == 1.0 ? y : x + noise_factor * (y - x);
    };
    AuditOptions options;
    options.trials = s.trials;
    options.confidence = s.confidence;
    options.delta = delta;
    // The Gaussian-DP lower end is a bound when the outputs are the input plus Gaussian noise:
    // the noise is added (noise_is_additive) and Gaussian (epsilon_for_noise_share is NaN for
    // any other noise; mechanisms/mechanism.h). Halving it keeps it Gaussian.
    options.gaussian_noise =
        mechanism->noise_is_additive() && std::isfinite(mechanism->epsilon_for_noise_share(0.5, s.dim));
    input.phases.start("distinguishing_game");
    const AuditResult r =
        audit_pair(sample, x0, x1, options, derive_seed(input.point.seed, input.point.point_id, "audit"));
    input.phases.stop();

    PointResult result;
    result.set("epsilon", mechanism->epsilon());
    result.set("claimed_epsilon", claimed);
    result.set("claimed_delta", delta);
    result.set("eps_lower_bound", r.eps_lower_bound);
    result.set("eps_estimate", r.eps_estimate);
    // The verdict reads the largest sound bound at confidence c (attacks/audit.h, BestBound).
    result.set("above_claim", r.best.eps_lower_bound > claimed ? 1.0 : 0.0);
    result.set("eps_lower_bound_best", r.best.eps_lower_bound);
    result.set("hits_x0", static_cast<double>(r.hits_x0));
    result.set("hits_x1", static_cast<double>(r.hits_x1));
    result.set("trials", static_cast<double>(r.trials));
    result.set("threshold", r.threshold);
    result.set("eps_lower_bound_all_thresholds", r.eps_lower_bound_all_thresholds);
    result.set("gdp_mu", r.gdp.mu);
    result.set("gdp_mu_low", r.gdp.mu_low);
    result.set("gdp_mu_high", r.gdp.mu_high);
    result.set("gdp_eps", r.gdp.eps);
    result.set("gdp_eps_low", r.gdp.eps_low);
    result.curves.push_back({"tradeoff_alpha", r.tradeoff_alpha});
    result.curves.push_back({"tradeoff_beta", r.tradeoff_beta});
    result.set("mechanism_name", name);
    result.set("claim_kind", claim.kind);
    result.set("test", r.test);
    result.set("broken", kBreak.name_of(s.broken));
    result.set("above_claim_by", r.best.name);
    std::ostringstream headline;
    headline.precision(3);
    headline << "eps_lb=" << r.eps_lower_bound << " (" << r.test << ") best=" << r.best.eps_lower_bound << " ("
             << r.best.name << ") claimed=" << claimed << (r.best.eps_lower_bound > claimed ? " ABOVE THE CLAIM" : "");
    result.headline = headline.str();
    return result;
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_audit_experiment() { return std::make_unique<AuditExperiment>(); }

}  // namespace embpriv
