#include "experiments/types/perturbation/perturbation_experiment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/rng.h"
#include "experiments/engine/config_document.h"
#include "data/corpora/synthetic_inputs.h"
#include "experiments/types/perturbation/perturbation_keys.h"
#include "experiments/types/perturbation/perturbation_memory.h"
#include "experiments/types/shared/claim_columns.h"
#include "experiments/types/shared/user_vectors.h"
#include "experiments/types/shared/user_vectors_keys.h"
#include "mechanisms/mechanism.h"
#include "metrics/running_stats.h"
#include "metrics/similarity.h"

namespace embpriv {
namespace {

using namespace perturbation_key;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kChunkRows = kPerturbationChunkRows;
constexpr int kHistogramBins = 200;        // cosine histogram over [-1, 1]

struct Settings {
  std::int64_t dim, samples;
  double norm_min, norm_max, text_fraction;
  YAML::Node mechanism;
  bool user_vectors = false;  // data.vectors: the rows of the user's file, not random directions
};

Settings read_settings(const YAML::Node& config) {
  Settings s{kDim(config), kSamples(config), kNormMin(config), kNormMax(config), kTextFraction(config),
             config["mechanism"]};
  require_key(s.norm_max >= s.norm_min, kNormMax.path(),
              "must be >= " + kNormMin.path() + ", got " + flow_yaml(config["data"]["norm_max"]));
  if (uses_user_vectors(config)) {
    // Every row of the file, at its own dimension: data.dim, data.samples and the norms describe
    // the random directions only.
    const UserVectorsShape shape = check_user_vectors(config);
    s.user_vectors = true;
    s.dim = shape.dim;
    s.samples = shape.rows;
  }
  return s;
}

// Row i is text when floor((i+1) f) > floor(i f): a share f of the rows, evenly interleaved,
// the same whatever the chunking.
bool is_text_row(std::int64_t i, double f) {
  return std::floor(static_cast<double>(i + 1) * f) > std::floor(static_cast<double>(i) * f);
}

// E||y||^2 / ||x||^2 for one row: 1 where the mechanism keeps ||x||, else its theory's closed
// form (Thm 5.4 and its Laplace analogue, after clipping); NaN where it has none.
double theory_squared_norm_ratio(const Mechanism& m, double epsilon, double squared_norm,
                                 double l1_norm, std::int64_t d) {
  if (m.norm_kept().known()) return 1.0;
  return m.expected_squared_norm(squared_norm, l1_norm, d, epsilon).value / squared_norm;
}

// The statistics of y = M(x) over the rows of a point, chunk by chunk, next to the theory of
// the mechanism at each modality's budget.
class OutputStatistics {
 public:
  OutputStatistics(const Mechanism& mechanism, std::int64_t d)
      : mechanism_(mechanism), d_(d),
        eps_{mechanism.epsilon_for(Modality::visual), mechanism.epsilon_for(Modality::text)},
        counts_(kHistogramBins, 0.0) {
    // E[cos(x, y)] where the theory has a closed form (NaN elsewhere).
    for (int m = 0; m < 2; ++m) cosine_theory_[m] = mechanism.cosine(d, eps_[m]).value;
  }

  void add(const at::Tensor& x, const at::Tensor& y, const std::int64_t* modality_of) {
    const std::vector<double> cosines = row_cosines(x, y);
    const std::vector<double> ratios = row_norm_ratios(x, y);
    const at::Tensor squared = x.to(at::kDouble).pow(2).sum(1);
    const at::Tensor l1 = x.to(at::kDouble).abs().sum(1);
    const double* sq = squared.data_ptr<double>();
    const double* l1_of = l1.data_ptr<double>();
    for (std::int64_t i = 0; i < x.size(0); ++i) {
      const int m = static_cast<int>(modality_of[i]);
      const double c = cosines[static_cast<std::size_t>(i)];
      const double r = ratios[static_cast<std::size_t>(i)];
      cosine_.add(c);
      by_modality_[m].add(c);
      angle_.add(std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / M_PI);
      norm_ratio_.add(r);
      squared_ratio_.add(r * r);
      squared_theory_.add(theory_squared_norm_ratio(mechanism_, eps_[m], sq[i], l1_of[i], d_));
      const int bin = std::clamp(static_cast<int>((c + 1.0) / 2.0 * kHistogramBins), 0,
                                 kHistogramBins - 1);
      counts_[static_cast<std::size_t>(bin)] += 1;
    }
  }

  PointResult result(const Mechanism& mechanism, std::int64_t samples) const {
    auto mean_or_nan = [](const RunningStats& r) { return r.count() ? r.mean() : kNaN; };
    double overall_theory = 0;  // the theory averaged over the rows of each modality
    for (int m = 0; m < 2; ++m) {
      const double share = static_cast<double>(by_modality_[m].count()) / static_cast<double>(samples);
      if (share > 0) overall_theory += share * cosine_theory_[m];
    }
    PointResult result;
    result.set("epsilon", eps_[0]);
    result.set("epsilon_text", eps_[1]);
    result.set("mean_cosine", cosine_.mean());
    result.set("mean_cosine_stderr", cosine_.standard_error());
    result.set("theory_cosine", overall_theory);
    result.set("mean_angle_degrees", angle_.mean());
    result.set("mean_norm_ratio", norm_ratio_.mean());
    result.set("mean_squared_norm_ratio", squared_ratio_.mean());
    result.set("theory_squared_norm_ratio", squared_theory_.mean());
    result.set("mean_cosine_visual", mean_or_nan(by_modality_[0]));
    result.set("mean_cosine_text", mean_or_nan(by_modality_[1]));
    result.set("theory_cosine_visual", by_modality_[0].count() ? cosine_theory_[0] : kNaN);
    result.set("theory_cosine_text", by_modality_[1].count() ? cosine_theory_[1] : kNaN);
    result.set("mechanism_name", mechanism.name());
    result.set("claim", mechanism.claim().describe());
    set_claim_columns(result, mechanism.claim());
    std::vector<double> edges(kHistogramBins + 1);
    for (int b = 0; b <= kHistogramBins; ++b) edges[static_cast<std::size_t>(b)] = -1.0 + 2.0 * b / kHistogramBins;
    result.curves = {{"cosine_histogram_edges", edges}, {"cosine_histogram_counts", counts_}};
    std::ostringstream headline;
    headline.precision(4);
    headline << "mean_cosine=" << cosine_.mean();
    if (std::isfinite(overall_theory)) headline << " (theory " << overall_theory << ")";
    result.headline = headline.str();
    return result;
  }

 private:
  const Mechanism& mechanism_;
  std::int64_t d_;
  double eps_[2];
  double cosine_theory_[2];
  RunningStats cosine_, angle_, norm_ratio_, squared_ratio_, squared_theory_, by_modality_[2];
  std::vector<double> counts_;
};

class PerturbationExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "perturbation"; }
  std::string summary() const override {
    return "one mechanism on random directions (or your own vectors, data.vectors): cosine, angle and norm "
           "statistics next to the vMF paper's theory";
  }
  ConfigKeys keys() const override {
    return {
        kSource, kDim, kSamples, kNormMin, kNormMax, kTextFraction,
        user_vectors_key::kVectors.with_help(
            "your own vectors instead of random directions: every row of an .npy or .h5/.hdf5 file (embpriv embed "
            "writes one), at its own dimension (data.dim, data.samples and the norms are not read); '': random "
            "directions"),
        user_vectors_key::kDataset,
        ConfigKey::open_map("mechanism", "{name: vmf_tangent, epsilon: 1, beta: 1}",
                            "the mechanism and its keys (embpriv mechanisms)"),
    };
  }

  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    read_settings(config);
    point_mechanism(config, registry);
  }

  std::vector<std::string> number_columns() const override {
    return with_claim_number_columns({"epsilon",           "epsilon_text",          "mean_cosine",
            "mean_cosine_stderr", "theory_cosine",         "mean_angle_degrees",
            "mean_norm_ratio",   "mean_squared_norm_ratio", "theory_squared_norm_ratio",
            "mean_cosine_visual", "mean_cosine_text",      "theory_cosine_visual",
            "theory_cosine_text"});
  }
  std::vector<std::string> string_columns() const override {
    return with_claim_string_columns({"mechanism_name", "claim"});
  }
  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return perturbation_memory(config); }

  double estimate_seconds(const YAML::Node& config) const override {
    const Settings s = read_settings(config);
    // About 15 ns per value on one core: inputs, mechanism and statistics. The mechanism alone
    // takes 7-9 ns per value on one thread (bench/README.md, `mechanisms`: 29,000-34,000
    // vectors/s at d = 4096).
    constexpr double kSecondsPerValue = 15e-9;
    return kSecondsPerValue * static_cast<double>(s.samples) * static_cast<double>(s.dim);
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::string x;
    // mechanism.alpha: vMF's share of epsilon for text rows (mechanisms/param_spec.h), an x axis
    // of its own.
    const std::string alpha = "mechanism.alpha";
    for (const std::string& candidate : {kMechanismEpsilonPath, alpha, kDim.path()}) {
      if (std::find(swept.begin(), swept.end(), candidate) != swept.end()) {
        x = candidate;
        break;
      }
    }
    if (x.empty()) return {};
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != x) groups.push_back(s);
    }
    const bool log_x = x != alpha;
    std::vector<PlotRequest> plots{
        {"cosine", x, "mean_cosine", groups, "theory_cosine", log_x, false,
         "mean cos(x, y) vs " + x + " (dashed: theory)"},
        {"norm_ratio", x, "mean_squared_norm_ratio", groups, "theory_squared_norm_ratio", log_x,
         true, "mean ||y||^2 / ||x||^2 vs " + x + " (dashed: theory)"},
    };
    if (x == alpha) {
      plots.push_back({"text_cosine", x, "mean_cosine_text", groups, "theory_cosine_text", false,
                       false, "text rows: mean cos(x, y), eps_text = alpha * eps"});
    }
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const Settings s = read_settings(input.config);
    const auto mechanism = point_mechanism(input.config, input.mechanisms);
    // Inputs depend on the data settings and the replicate only: every mechanism and epsilon
    // of one seed sees the same rows (paired comparisons).
    const std::uint64_t input_seed =
        derive_seed(input.point.seed, fnv1a64(flow_yaml(input.config["data"])), "inputs");
    const RandomStream stream{derive_seed(input.point.seed, input.point.point_id, "mechanism"), 0};
    const at::Tensor user = s.user_vectors ? load_user_vectors(input.config, input.cache).vectors : at::Tensor();
    OutputStatistics stats(*mechanism, s.dim);
    for (std::int64_t start = 0; start < s.samples; start += kChunkRows) {
      const std::int64_t n = std::min(kChunkRows, s.samples - start);
      input.phases.start("inputs");
      const at::Tensor x = s.user_vectors ? user.narrow(0, start, n).contiguous()
                                          : random_directions(n, s.dim, s.norm_min, s.norm_max, input_seed, start);
      at::Tensor modality = at::zeros({n}, at::kLong);
      auto* modality_of = modality.data_ptr<std::int64_t>();
      for (std::int64_t i = 0; i < n; ++i) modality_of[i] = is_text_row(start + i, s.text_fraction);
      input.phases.start("perturb");
      const at::Tensor y = mechanism->perturb(x, stream.shifted(start), {modality, at::Tensor()});
      input.phases.start("statistics");
      stats.add(x, y, modality_of);
    }
    input.phases.stop();
    return stats.result(*mechanism, s.samples);
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_perturbation_experiment() {
  return std::make_unique<PerturbationExperiment>();
}

}  // namespace embpriv
