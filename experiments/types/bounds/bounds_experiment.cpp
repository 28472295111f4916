#include "experiments/types/bounds/bounds_experiment.h"

#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>

#include "experiments/engine/run_cache.h"
#include "experiments/types/bounds/bounds_keys.h"
#include "experiments/types/bounds/bounds_memory.h"
#include "experiments/types/bounds/bounds_plot.h"
#include "experiments/types/bounds/bounds_table.h"

namespace embpriv {
namespace {

using namespace bounds_key;

// Seconds per input value and perturbed batch, measured: a setting at d = 4096 with 20,000
// inputs (two batches, checks included) took 1.4 s in `make demo` on the 2-core CI machine.
constexpr double kSecondsPerValue = 1.4 / (2 * 20000.0 * 4096.0);
constexpr double kBatchesPerSetting = 2;

struct BoundsSettings {
  std::int64_t samples;
  double confidence;
  BoundsSetting setting;
};

double mechanism_epsilon(const YAML::Node& config, const BoundsSetting& s, double per_dimension) {
  if (per_dimension > 0) return per_dimension * static_cast<double>(s.d);
  if (s.noise_share > 0) return std::numeric_limits<double>::quiet_NaN();  // calibrated per setting
  return mechanism_epsilon_of(config);
}

BoundsSettings read_settings(const YAML::Node& config, std::uint64_t seed) {
  BoundsSettings b;
  BoundsSetting& s = b.setting;
  s.mechanism = config["mechanism"];
  s.name = point_value<std::string>(config, "mechanism.name", "a mechanism name");
  s.d = kDim(config);
  b.samples = kSamples(config);
  const double per_dimension = kEpsilonPerDimension(config);
  s.noise_share = kNoiseShare(config);
  b.confidence = kConfidence(config);
  require_key(per_dimension == 0 || s.noise_share == 0, kNoiseShare.path(),
              "and " + kEpsilonPerDimension.path() + " both set the epsilon: give one of them");
  s.epsilon = mechanism_epsilon(config, s, per_dimension);
  s.beta = config["mechanism"]["beta"] ? point_value<double>(config, "mechanism.beta", "a number")
                                       : std::numeric_limits<double>::quiet_NaN();
  s.seed = seed;
  return b;
}

// The inputs of one (seed, samples, d), made once per run: every setting of a dimension sees the
// same rows (paired comparisons, as in the vMF paper's tables).
const BoundsInputs& inputs_of(RunCache& cache, std::int64_t samples, std::int64_t d, std::uint64_t seed) {
  const std::string key = "bounds_inputs|" + std::to_string(samples) + "|" + std::to_string(d) + "|" +
                          std::to_string(seed);
  return cache.get_or_make<BoundsInputs>(key, [&] { return make_bounds_inputs(samples, d, seed); });
}

class BoundsExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "bounds"; }
  std::string summary() const override {
    return "the vMF paper's norm, cosine, dot-product and norm-inflation theorems checked by "
           "simulation, with PASS/FAIL";
  }
  ConfigKeys keys() const override {
    return {
        kDim, kSamples,
        ConfigKey::open_map("mechanism", "{name: vmf_tangent, epsilon: 1, beta: 1}",
                            "the setting's mechanism and its keys (embpriv mechanisms)"),
        kEpsilonPerDimension, kNoiseShare, kConfidence,
    };
  }

  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const BoundsSettings settings = read_settings(config, 1);
    const BoundsSetting& s = settings.setting;
    YAML::Node node = YAML::Clone(config["mechanism"]);
    node["epsilon"] = std::isnan(s.epsilon) ? 1.0 : s.epsilon;
    YAML::Node checked = YAML::Clone(config);
    checked["mechanism"] = node;
    const auto mechanism = point_mechanism(checked, registry);
    if (s.noise_share > 0) {
      require_key(std::isfinite(mechanism->epsilon_for_noise_share(s.noise_share, s.d)), kNoiseShare.path(),
                  "needs a mechanism with Gaussian noise; " + s.name + " has none");
    }
  }

  std::vector<std::string> number_columns() const override { return bounds_number_columns(); }
  std::vector<std::string> string_columns() const override { return bounds_string_columns(); }
  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return bounds_memory(config); }

  double estimate_seconds(const YAML::Node& config) const override {
    const BoundsSettings b = read_settings(config, 1);
    return kBatchesPerSetting * kSecondsPerValue * static_cast<double>(b.samples * b.setting.d);
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>&) const override { return {}; }

  PointResult run_point(const PointInput& input) const override {
    const BoundsSettings b = read_settings(input.config, input.point.seed);
    input.phases.start("inputs");
    const BoundsInputs& inputs = inputs_of(input.cache, b.samples, b.setting.d, input.point.seed);
    input.phases.start("checks");
    const std::vector<CheckRow> checks = run_setting_checks(b.setting, inputs, input.mechanisms);
    input.phases.stop();
    PointResult result;
    put_checks(b.setting, checks, result);
    std::size_t exact = 0, failed = 0;
    for (const CheckRow& c : checks) {
      exact += std::isnan(c.standard_error);
      failed += std::isnan(c.standard_error) && !c.pass;
    }
    std::ostringstream headline;
    headline << checks.size() << " checks; " << failed << " of " << exact << " exact ones failed";
    result.headline = headline.str();
    return result;
  }

  void complete_table(ResultsTable& table, const YAML::Node& config) const override {
    judge_intervals(table, kConfidence(config));
  }

  int report(const ResultsTable& table, std::ostream& out) const override {
    const std::vector<CheckRow> checks = checks_from_table(table);
    print_bounds_table(out, checks);
    for (const CheckRow& c : checks) {
      if (!c.pass) return 1;
    }
    return 0;
  }

  std::vector<std::string> draw_figures(const ResultsTable& table, const std::string& stem) const override {
    const std::string path = stem + ".cosines.png";
    return plot_bounds_cosines(checks_from_table(table), path) ? std::vector<std::string>{path}
                                                               : std::vector<std::string>{};
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_bounds_experiment() { return std::make_unique<BoundsExperiment>(); }

}  // namespace embpriv
