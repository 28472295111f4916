#include "experiments/types/mia/mia_experiment.h"

#include <ATen/ATen.h>

#include <numeric>
#include <sstream>

#include "attacks/membership_inference.h"
#include "data/data_paths.h"
#include "experiments/types/mia/mia_memory.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/membership_columns.h"
#include "mechanisms/mechanism.h"
#include "models/logistic_regression.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv {
namespace {

struct MiaSettings {
  InversionSettings data;
  std::int64_t examples, shadows;
  LiraCenter center;
  bool perturb;
  double l2;
};

MiaSettings read_settings(const YAML::Node& c) {
  MiaSettings s;
  s.data.vocabulary = "glove";
  s.data.glove = point_value<std::string>(c, "data.glove");
  s.data.glove_words = point_value<std::int64_t>(c, "data.glove_words");
  s.data.sentences = point_value<std::string>(c, "data.sentences");
  s.data.train_sentences = point_value<std::vector<std::string>>(c, "data.more_sentences");
  s.data.mask = "none";
  s.data.metric = "cosine";
  s.examples = point_value<std::int64_t>(c, "data.examples");
  s.perturb = point_value<bool>(c, "data.perturb");
  s.shadows = point_value<std::int64_t>(c, "attack.shadows");
  s.center = point_value<std::string>(c, "attack.center") == "median" ? LiraCenter::median : LiraCenter::mean;
  s.l2 = point_value<double>(c, "target.l2");
  return s;
}

// Mean-pooled sentence features of every candidate, with token rows perturbed (or clean).
at::Tensor sentence_features(const PrivateText& text, const Mechanism* mechanism, std::uint64_t seed) {
  const at::Tensor rows = text.table.index_select(0, at::tensor(text.flat, at::kLong));
  const at::Tensor used = mechanism ? mechanism->perturb(rows, RandomStream{seed, 0}) : rows;
  return mean_pooled(text, used).features;
}

// A classifier trained on the members' (noisy) features.
LogisticRegression train_on(const at::Tensor& noisy, const at::Tensor& labels, const at::Tensor& in, double l2) {
  const at::Tensor members = in.nonzero().squeeze(1);
  return LogisticRegression::fit(noisy.index_select(0, members), labels.index_select(0, members), l2);
}

struct Shadows {
  at::Tensor phi, in;  // [S, N]
};

class MiaExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "mia"; }
  std::string summary() const override {
    return "membership inference (loss threshold, LiRA) against a sentiment classifier on perturbed embeddings";
  }
  ConfigKeys keys() const override {
    return {
        glove_table_key(),
        ConfigKey::integer("data.glove_words", 100000, "the N most frequent GloVe words (0: all)").at_least(0),
        ConfigKey::text("data.sentences", "sentiment/yelp.json", "candidates come from these ..."),
        ConfigKey::texts("data.more_sentences", {"sentiment/amazon.json", "sentiment/imdb.json"},
                         "... and these, shuffled"),
        ConfigKey::integer("data.examples", 400, "candidate sentences; the target trains on a random half")
            .at_least(20),
        ConfigKey::boolean("data.perturb", true, "false: an unprotected classifier (the mechanism is not applied)"),
        ConfigKey::open_map("mechanism", "{name: gaussian, epsilon: 10, delta: 1.0e-5, clip_norm: 8}",
                            "the mechanism and its keys (embpriv mechanisms)"),
        ConfigKey::number("target.l2", "1.0e-3", "the logistic regression's L2 penalty (small: the model memorises)")
            .above(0),
        ConfigKey::integer("attack.shadows", 16,
                           "shadow classifiers, each on a random half (LiRA fits a Gaussian per example)")
            .at_least(2),
        ConfigKey::text("attack.center", "mean",
                        "LiRA's per-example centre of the shadows' phi (median: as Carlini et al.'s released code)")
            .one_of({"mean", "median"}),
    };
  }
  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const MiaSettings s = read_settings(config);
    std::vector<std::pair<std::string, std::string>> files = {{"data.glove", s.data.glove},
                                                              {"data.sentences", s.data.sentences}};
    for (const std::string& f : s.data.train_sentences) files.emplace_back("data.more_sentences", f);
    check_data_files(files);
    point_mechanism(config, registry);
  }

  std::vector<std::string> number_columns() const override {
    std::vector<std::string> columns = {"epsilon", "perturbed", "examples", "shadows", "target_train_accuracy",
                                        "target_test_accuracy"};
    for (const std::string& c : membership_columns()) columns.push_back(c);
    return columns;
  }
  std::vector<std::string> string_columns() const override { return {"mechanism_name"}; }
  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return mia_memory(config); }
  double estimate_seconds(const YAML::Node& config) const override {
    const MiaSettings s = read_settings(config);
    // A fixed second plus a rate per candidate for each classifier (the target and every
    // shadow: perturb its sentences, fit the logistic regression, score the candidates), both
    // set by hand. Checked once: 400 candidates and 4 shadows (estimate 5 s) took 6.2 s a row
    // with the data already loaded, on a 2-vCPU machine busy with two builds (2026-11-23).
    constexpr double kFixedSeconds = 1.0;
    constexpr double kSecondsPerCandidateAndClassifier = 0.002;
    return kFixedSeconds + kSecondsPerCandidateAndClassifier * static_cast<double>(s.examples * (s.shadows + 1));
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != "mechanism.epsilon") groups.push_back(s);
    }
    std::vector<PlotRequest> plots;
    if (std::find(swept.begin(), swept.end(), "mechanism.epsilon") != swept.end()) {
      for (const std::string& a : {std::string("loss"), std::string("lira_online"), std::string("lira_offline")}) {
        PlotRequest auc{"auc_" + a, "mechanism.epsilon", "auc_" + a, groups, "", true, false,
                        "membership inference AUC, " + a, "", "versus_epsilon"};
        plots.push_back(auc);
        PlotRequest tpr{"tpr_" + a, "mechanism.epsilon", "tpr_at_1%fpr_" + a, groups, "", true, false,
                        "TPR at 1% FPR, " + a, "", "versus_epsilon"};
        plots.push_back(tpr);
      }
    }
    std::vector<std::string> roc_groups = swept;
    for (const std::string& a : membership_attack_names()) {
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
    InversionSettings data_settings = s.data;
    input.phases.start("load");
    const InversionData& data = load_inversion_data(data_settings, input.cache);
    // The candidates: every sentence of both sources, in a fixed shuffled order, the first N.
    std::vector<LabelledSentence> pool = data.sentences;
    pool.insert(pool.end(), data.train_sentences.begin(), data.train_sentences.end());
    Rng shuffle_rng(derive_seed(0, 0, "mia.candidates"), 0);
    shuffle(pool, shuffle_rng);
    EMBPRIV_CHECK(static_cast<std::int64_t>(pool.size()) >= s.examples,
                  "mia: data.examples is " << s.examples << " but the sentences hold " << pool.size());
    pool.resize(static_cast<std::size_t>(s.examples));
    const PrivateText text = encode_sentences(data, s.data, pool, pool.size());
    const SentenceFeatures clean_features = mean_pooled(text, text.table.index_select(0, at::tensor(text.flat, at::kLong)));
    const at::Tensor& clean = clean_features.features;
    const at::Tensor& labels = clean_features.labels;
    const std::int64_t N = clean.size(0);
    const Mechanism* used = s.perturb ? mechanism.get() : nullptr;
    const auto seed = [&](const std::string& purpose, std::uint64_t index) {
      return derive_seed(input.point.seed, input.point.point_id, purpose + "." + std::to_string(index));
    };

    // The target: a random half, its own noise; queried on clean candidates.
    input.phases.start("train_target");
    const at::Tensor members = random_members(N, seed("mia.members", 0));
    const LogisticRegression target =
        train_on(sentence_features(text, used, seed("mia.target_noise", 0)), labels, members, s.l2);
    const at::Tensor target_phi = logit_confidence(target.probabilities(clean), labels);
    const at::Tensor outside = (~members).nonzero().squeeze(1), inside = members.nonzero().squeeze(1);
    const double train_accuracy = target.accuracy(clean.index_select(0, inside), labels.index_select(0, inside));
    const double test_accuracy = target.accuracy(clean.index_select(0, outside), labels.index_select(0, outside));

    // The shadows: the attacker's own random halves and noise. Every attack variant below reads
    // these same shadows: none retrains.
    input.phases.start("train_shadows");
    Shadows shadows{at::empty({s.shadows, N}, at::kDouble), at::empty({s.shadows, N}, at::kBool)};
    for (std::int64_t k = 0; k < s.shadows; ++k) {
      const auto index = static_cast<std::uint64_t>(k + 1);
      const at::Tensor in = random_members(N, seed("mia.shadow_members", index));
      shadows.in[k] = in;
      const LogisticRegression shadow =
          train_on(sentence_features(text, used, seed("mia.shadow_noise", index)), labels, in, s.l2);
      shadows.phi[k] = logit_confidence(shadow.probabilities(clean), labels);
    }
    input.phases.start("attack");
    const MembershipAttackScores attacks = membership_scores(target_phi, shadows.phi, shadows.in, s.center);
    input.phases.stop();

    PointResult result;
    result.set("epsilon", mechanism->epsilon());
    result.set("perturbed", s.perturb ? 1.0 : 0.0);
    result.set("examples", static_cast<double>(N));
    result.set("shadows", static_cast<double>(s.shadows));
    result.set("target_train_accuracy", train_accuracy);
    result.set("target_test_accuracy", test_accuracy);
    std::ostringstream headline;
    headline.precision(3);
    for (const auto& [name, scores] : attacks.scores) {
      const RocSummary roc = roc_summary(scores, members);
      for (const auto& [column, value] : membership_numbers(name, &roc)) result.set(column, value);
      result.curves.push_back({"roc_fpr_" + name, roc.fpr});
      result.curves.push_back({"roc_tpr_" + name, roc.tpr});
      if (name == "loss" || name == "lira_online") {
        headline << name << ": auc=" << roc.auc << " tpr@1%=" << roc.tpr_at_1_percent << " ";
      }
    }
    headline << "test_acc=" << test_accuracy;
    result.set("mechanism_name", s.perturb ? mechanism->name() : "none");
    result.headline = headline.str();
    return result;
  }

};

}  // namespace

std::unique_ptr<ExperimentType> make_mia_experiment() { return std::make_unique<MiaExperiment>(); }

}  // namespace embpriv
