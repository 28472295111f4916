#include "experiments/types/mia/mia_experiment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <sstream>

#include "attacks/membership_inference.h"
#include "attacks/membership_report.h"
#include "attacks/rmia.h"
#include "core/device.h"
#include "data/tables/data_paths.h"
#include "experiments/types/mia/mia_attacks.h"
#include "experiments/types/mia/mia_keys.h"
#include "experiments/types/mia/mia_memory.h"
#include "experiments/types/mia/mia_models.h"
#include "experiments/types/shared/claim_columns.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/user_vectors.h"
#include "experiments/types/shared/user_vectors_keys.h"
#include "mechanisms/mechanism.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv {
namespace {

using namespace mia_key;

struct MiaSettings {
  InversionSettings data;
  std::int64_t examples, shadows, population;
  LiraCenter center;
  RmiaParameters rmia;
  bool perturb;
  double l2;
};

MiaSettings read_settings(const YAML::Node& c) {
  MiaSettings s;
  s.data.vocabulary = Vocabulary::glove;
  s.data.glove = kGlove(c);
  s.data.glove_words = kGloveWords(c);
  s.data.sentences = kSentences(c);
  s.data.train_sentences = kMoreSentences(c);
  s.data.mask = TokenMask::none;
  s.data.metric = KnnMetric::cosine;
  s.examples = kExamples(c);
  s.perturb = kPerturb(c);
  s.shadows = kShadows(c);
  s.center = kCenter(c);
  s.population = kPopulation(c);
  s.rmia.gamma = kRmiaGamma(c);
  s.rmia.offline_a = kRmiaOfflineA(c);
  s.l2 = kTargetL2(c);
  if (c["device"] && c["device"].IsScalar()) s.data.device = c["device"].as<std::string>();  // where the fits run
  return s;
}

// The clean features of sentences, with their labels.
SentenceFeatures clean_features_of(const PrivateText& text) {
  return mean_pooled(text, text.table.index_select(0, at::tensor(text.flat, at::kLong)));
}

// What needs the labels of data.vectors, for its message.
const char* const kLabelsFor = "mia's target and shadow classifiers";

// The candidates and RMIA's population: GloVe sentences of data.sentences and data.more_sentences
// (mean-pooled word rows), or the rows of data.vectors (each row one candidate, its label the
// file's); either way the first data.examples of a fixed shuffle, then attack.population more.
MiaCandidates mia_candidates(const MiaSettings& s, const PointInput& input) {
  MiaCandidates candidates;
  Rng shuffle_rng(derive_seed(0, 0, "mia.candidates"), 0);
  if (uses_user_vectors(input.config)) {
    const UserVectors& user = load_user_vectors(input.config, input.cache);
    std::vector<std::int64_t> pool(static_cast<std::size_t>(user.vectors.size(0)));
    std::iota(pool.begin(), pool.end(), std::int64_t{0});
    shuffle(pool, shuffle_rng);
    const std::vector<std::int64_t> population(pool.begin() + s.examples, pool.begin() + s.examples + s.population);
    pool.resize(static_cast<std::size_t>(s.examples));
    candidates.text = rows_as_sentences(user.vectors, pool, user.labels);
    candidates.clean = clean_features_of(candidates.text);
    candidates.population = clean_features_of(rows_as_sentences(user.vectors, population, user.labels));
    return candidates;
  }
  const InversionData& data = load_inversion_data(s.data, input.cache);
  // The candidates: every sentence of both sources, in a fixed shuffled order, the first N.
  std::vector<LabelledSentence> pool = data.sentences;
  pool.insert(pool.end(), data.train_sentences.begin(), data.train_sentences.end());
  shuffle(pool, shuffle_rng);
  EMBPRIV_CHECK(static_cast<std::int64_t>(pool.size()) >= s.examples + s.population,
                "mia: data.examples (" << s.examples << ") plus attack.population (" << s.population
                                       << ") exceed the " << pool.size() << " sentences");
  // RMIA's population: the next sentences of the same shuffled pool, never a candidate.
  const std::vector<LabelledSentence> population_sentences(pool.begin() + s.examples,
                                                           pool.begin() + s.examples + s.population);
  pool.resize(static_cast<std::size_t>(s.examples));
  candidates.text = encode_sentences(data, s.data, pool, pool.size());
  candidates.clean = clean_features_of(candidates.text);
  candidates.population =
      clean_features_of(encode_sentences(data, s.data, population_sentences, population_sentences.size()));
  return candidates;
}

class MiaExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "mia"; }
  std::string summary() const override {
    return "membership inference (loss threshold, LiRA, RMIA) against a sentiment classifier on perturbed embeddings";
  }
  ConfigKeys keys() const override {
    return {
        kGlove, kGloveWords, kSentences, kMoreSentences,
        user_vectors_key::kVectors.with_help(
            "your own vectors instead of GloVe sentences: an .npy or .h5/.hdf5 file of one vector per row with "
            "per-row labels of 0 and 1 (embpriv embed writes them from a sentences JSON); each row is a candidate "
            "or a population item; '': the built-in data"),
        user_vectors_key::kDataset, kExamples, kPerturb,
        ConfigKey::open_map("mechanism", "{name: gaussian, epsilon: 10, delta: 1.0e-5, clip_norm: 8}",
                            "the mechanism and its keys (embpriv mechanisms)"),
        kTargetL2, kShadows, kCenter, kPopulation, kRmiaGamma, kRmiaOfflineA,
    };
  }
  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const MiaSettings s = read_settings(config);
    if (uses_user_vectors(config)) {
      const UserVectorsShape shape = check_user_vectors(config, 1, kLabelsFor);
      require_key(shape.rows >= s.examples + s.population, kExamples.path(),
                  "(" + std::to_string(s.examples) + ") plus attack.population (" + std::to_string(s.population) +
                      ") exceed the " + std::to_string(shape.rows) + " rows of data.vectors '" +
                      user_vectors_key::kVectors(config) + "'");
      point_mechanism(config, registry);
      return;
    }
    std::vector<std::pair<std::string, std::string>> files = {{kGlove.path(), s.data.glove},
                                                              {kSentences.path(), s.data.sentences}};
    for (const std::string& f : s.data.train_sentences) files.emplace_back(kMoreSentences.path(), f);
    check_data_files(files);
    point_mechanism(config, registry);
  }

  std::vector<std::string> number_columns() const override {
    std::vector<std::string> columns = {"epsilon", "perturbed", "examples", "shadows", "population", "target_train_accuracy",
                                        "target_test_accuracy"};
    for (const std::string& c : membership_columns(mia_attack_names())) columns.push_back(c);
    return with_claim_number_columns(columns);
  }
  std::vector<std::string> string_columns() const override { return with_claim_string_columns({"mechanism_name"}); }
  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return mia_memory(config); }
  double estimate_seconds(const YAML::Node& config) const override {
    const MiaSettings s = read_settings(config);
    // A small fixed cost per row (the run's data load, 0.4 s measured, spread over its first
    // rows) plus a rate per candidate for each classifier (the target and every shadow: perturb
    // its sentences, fit the logistic regression, score the candidates). Measured 2026-11-26 at
    // --threads 1 on the shared 2-vCPU machine (OpenBLAS, Haswell kernel), /timing/seconds less
    // /timing/load per row: configs/ci/mia_small.yaml 0.027 s (400 candidates, 4 shadows: 2,000
    // candidate-classifiers), configs/paper/mia.yaml 0.196 s (32 shadows, gaussian, laplace and
    // vmf: 13,200), configs/paper/mia_unprotected.yaml 0.11 s (32 shadows, no mechanism): 1.5e-5 s
    // per candidate and classifier with a mechanism. Whole runs against this estimate: mia_small
    // 0.95 s wall (estimate 0.6 s), mia 13.0 s (15 s), mia_unprotected 1.7 s (2.0 s),
    // mia_rmia 12.7 s (41 s: its rows share their models, which the estimate counts as new).
    // The rates before (1 s + 2e-3 s) estimated 40 s, 27 min, 4 min and 50 min.
    constexpr double kFixedSeconds = 0.05;
    constexpr double kSecondsPerCandidateAndClassifier = 1.5e-5;
    return kFixedSeconds + kSecondsPerCandidateAndClassifier * static_cast<double>(s.examples * (s.shadows + 1));
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != kMechanismEpsilonPath) groups.push_back(s);
    }
    std::vector<PlotRequest> plots;
    if (std::find(swept.begin(), swept.end(), kMechanismEpsilonPath) != swept.end()) {
      for (const std::string& a : {std::string("loss"), std::string("lira_online"), std::string("lira_offline"),
                                   std::string("rmia_online"), std::string("rmia_offline")}) {
        PlotRequest auc{"auc_" + a, kMechanismEpsilonPath, "auc_" + a, groups, "", true, false,
                        "membership inference AUC, " + a, "", "versus_epsilon"};
        plots.push_back(auc);
        PlotRequest tpr{"tpr_" + a, kMechanismEpsilonPath, "tpr_at_1%fpr_" + a, groups, "", true, false,
                        "TPR at 1% FPR, " + a, "", "versus_epsilon"};
        plots.push_back(tpr);
      }
    }
    // Over the number of reference models (configs/paper/mia_rmia.yaml): one panel per attack
    // that reads them, one line per setting; the rows of a setting share their models.
    if (std::find(swept.begin(), swept.end(), kShadows.path()) != swept.end()) {
      std::vector<std::string> settings;
      for (const auto& key : swept) {
        if (key != kShadows.path()) settings.push_back(key);
      }
      for (const std::string& a : {std::string("lira_online"), std::string("lira_offline"), std::string("rmia_online"),
                                   std::string("rmia_offline")}) {
        plots.push_back(PlotRequest{"auc_references_" + a, "shadows", "auc_" + a, settings, "", true, false,
                                    "AUC vs reference models, " + a, "", "auc_versus_references"});
        plots.push_back(PlotRequest{"tpr_references_" + a, "shadows", "tpr_at_1%fpr_" + a, settings, "", true, false,
                                    "TPR at 1% FPR vs reference models, " + a, "", "tpr_versus_references"});
      }
    }
    std::vector<std::string> roc_groups = swept;
    for (const std::string& a : mia_attack_names()) {
      PlotRequest roc{"roc_" + a, "roc_fpr_" + a, "roc_tpr_" + a, roc_groups, "", true, true,
                      "ROC (log-log), " + a, "", "roc"};
      roc.curves = true;
      plots.push_back(roc);
    }
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const MiaSettings s = read_settings(input.config);
    const auto mechanism = point_mechanism(input.config, input.mechanisms);
    input.phases.start("load");
    const MiaCandidates candidates = mia_candidates(s, input);
    const std::int64_t N = candidates.clean.features.size(0), P = candidates.population.features.size(0);
    const Mechanism* used = s.perturb ? mechanism.get() : nullptr;
    // Model 0 is the target (a random half, its own noise); 1..S the attacker's shadows (its own
    // halves and noise). Trained once per run for every row that shares them (mia_models.h).
    const std::uint64_t models_id = models_point_id(input.point);
    const c10::Device device = select_device(s.data.device);  // the target's and shadows' fits
    const auto classifier = [&](std::int64_t index) -> const MiaClassifier& {
      const std::string key = "mia.classifier/" + std::to_string(input.point.seed) + "/" + std::to_string(models_id) +
                              "/population " + std::to_string(s.population) + "/" + std::to_string(index);
      return input.cache.get_or_make<MiaClassifier>(
          key, [&] { return train_mia_classifier(candidates, used, s.l2, input.point.seed, models_id, index, device); });
    };
    input.phases.start("train_target");
    const MiaClassifier& target = classifier(0);
    const at::Tensor& members = target.in;
    MiaConfidences confidences;
    confidences.target_phi = target.phi;
    confidences.population_target_phi = target.population_phi;

    // The shadows. Every attack variant below reads these same shadows: none retrains.
    input.phases.start("train_shadows");
    confidences.shadow_phi = at::empty({s.shadows, N}, at::kDouble);
    confidences.shadow_in = at::empty({s.shadows, N}, at::kBool);
    confidences.population_shadow_phi = at::empty({s.shadows, P}, at::kDouble);
    for (std::int64_t k = 0; k < s.shadows; ++k) {
      const MiaClassifier& shadow = classifier(k + 1);
      confidences.shadow_in[k] = shadow.in;
      confidences.shadow_phi[k] = shadow.phi;
      confidences.population_shadow_phi[k] = shadow.population_phi;
    }
    input.phases.start("attack");
    const auto attacks = mia_attack_scores(confidences, s.center, s.rmia);
    input.phases.stop();

    PointResult result;
    result.set("epsilon", mechanism->epsilon());
    result.set("perturbed", s.perturb ? 1.0 : 0.0);
    result.set("examples", static_cast<double>(N));
    result.set("shadows", static_cast<double>(s.shadows));
    result.set("population", static_cast<double>(P));
    result.set("target_train_accuracy", target.train_accuracy);
    result.set("target_test_accuracy", target.test_accuracy);
    std::ostringstream headline;
    headline.precision(3);
    const MembershipReport report = membership_report(mia_attack_names(), attacks, members);
    for (const auto& [column, value] : report.numbers) result.set(column, value);
    for (const AttackOutcome& a : report.outcomes) {
      if (!a.ran) continue;  // LiRA with one shadow model: NaN, no curve
      result.curves.push_back({"roc_fpr_" + a.attack, a.roc.fpr});
      result.curves.push_back({"roc_tpr_" + a.attack, a.roc.tpr});
      if (a.attack == "loss" || a.attack == "lira_online" || a.attack == "rmia_online") {
        headline << a.attack << ": auc=" << a.roc.auc << " tpr@1%=" << a.roc.tpr_at_1_percent << " ";
      }
    }
    headline << "test_acc=" << target.test_accuracy;
    result.set("mechanism_name", s.perturb ? mechanism->name() : "none");
    PrivacyClaim unprotected{"none", std::numeric_limits<double>::quiet_NaN(), 0.0, "", "the features are not perturbed"};
    unprotected.epsilon_actual = std::numeric_limits<double>::infinity();
    unprotected.epsilon_actual_source = "not perturbed (data.perturb: false)";
    set_claim_columns(result, s.perturb ? mechanism->claim() : unprotected);
    result.headline = headline.str();
    return result;
  }

};

}  // namespace

std::unique_ptr<ExperimentType> make_mia_experiment() { return std::make_unique<MiaExperiment>(); }

}  // namespace embpriv
