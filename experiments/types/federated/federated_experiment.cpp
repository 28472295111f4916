#include "experiments/types/federated/federated_experiment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "attacks/membership_inference.h"
#include "attacks/membership_report.h"
#include "core/log.h"
#include "data/privateai/private_units.h"
#include "experiments/types/federated/federated_memory.h"
#include "experiments/types/federated/composed_privacy.h"
#include "experiments/types/federated/federated_keys.h"
#include "experiments/types/federated/federated_settings.h"
#include "federated/privateai_teachers.h"
#include "federated/protocol.h"

namespace embpriv {
namespace {

// Swept keys that make a useful x axis for PSR (the paper's Figures 3 and 5-9).
const std::vector<std::string> kNumericAxes = {
    federated_key::kDpEpsilon.path(),   federated_key::kAlpha.path(),   federated_key::kProxyBeta.path(),
    federated_key::kDistillMu.path(),   federated_key::kDistillEvery.path(), federated_key::kClients.path(),
    federated_key::kProxyUnits.path(),  federated_key::kScale.path(),   federated_key::kRounds.path()};

// dp.epsilon on an axis: the eps requested, which the classic formula does not deliver at eps >= 1
// (docs/privateai.md: the run's epsilon_actual column gives what the noise really gives).
const char* const kNominalEpsilonLabel = "dp.epsilon: nominal eps (classic formula) unless dp.calibration is analytic";

struct FederatedRun {
  std::vector<RoundRecord> rounds;
  at::Tensor candidate_phi;  // [C] logit confidence of the final model on every candidate
  at::Tensor test_answers;   // [T]
  double delta = 0;
  FederatedNoise noise;  // what the run really added (its sigma, sensitivity and releases)
  std::int64_t members = 0, parameters = 0;
};

// One federation trained on the candidates marked in `members` (PrivateAI's S). data: the units
// as the model reads them (an encoder's own token ids when `encoder` is set, federated_encoder.h).
FederatedRun run_federation(const FederatedSettings& s, const PrivateAiData& data, const EncoderRun* encoder,
                            const ProxyKnowledge* proxy, const at::Tensor& members, std::uint64_t seed) {
  const EncodedUnits S = select_units(data.candidates, members.nonzero().squeeze(1));
  std::vector<int> labels(static_cast<std::size_t>(S.labels.size(0)));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = S.labels[static_cast<std::int64_t>(i)].item<double>() > 0.5;
  std::vector<LabelledUnits> clients;
  if (s.method == FederatedMethod::central) {
    clients.push_back({S.ids, S.labels});  // every member's units in one place
  } else {
    for (const auto& rows : dirichlet_split(labels, s.clients, s.alpha, derive_seed(seed, 0, "privateai.split"))) {
      const at::Tensor index = at::tensor(rows, at::kLong);
      clients.push_back({S.ids.index_select(0, index), S.labels.index_select(0, index)});
    }
  }
  FederatedRun run;
  run.members = S.ids.size(0);
  FederatedOptions options = s.training;
  options.seed = seed;
  options.dp.delta = s.delta_setting > 0 ? s.delta_setting : 1.0 / static_cast<double>(run.members);  // delta = 1/|S|
  run.delta = options.dp.delta;
  run.noise = federated_noise(options, static_cast<std::int64_t>(clients.size()));
  if (options.dp.enabled && options.dp.calibration == NoiseCalibration::classic && options.dp.epsilon >= 1.0) {
    warn_once("dp.calibration: classic (the paper's sigma) is only proven for eps < 1 (Dwork & Roth, Thm A.1); "
              "points with eps >= 1 use it anyway, and their epsilon_actual column gives what the noise really "
              "gives (dp.calibration: analytic is exact for every eps)");
  }
  TextClassifierOptions model_options = s.model;
  model_options.seed = derive_seed(seed, 0, "privateai.model");
  TextClassifier model = encoder ? encoder_federation_model(*encoder, model_options.seed)
                                 : TextClassifier(data.embeddings, model_options);
  run.parameters = model.shared_size();
  run.rounds = train_federated(model, clients, proxy, options, [&](const TextClassifier& m) {
    return flag_accuracy(m.probabilities(data.test.ids), data.test.labels);
  });
  run.candidate_phi = logit_confidence(model.probabilities(data.candidates.ids), data.candidates.labels);
  run.test_answers = model.probabilities(data.test.ids);
  return run;
}

// The data of a run, loaded once per run (the run's cache, keyed by every data setting).
const PrivateAiData& run_data(const PrivateAiDataSettings& d, RunCache& cache) {
  std::ostringstream key;
  key << "privateai_data|" << d.glove << '|' << d.corpus << '|' << d.candidate_units << '|' << d.proxy_units << '|'
      << d.public_units << '|' << d.test_units << '|' << d.private_share << '|' << d.max_tokens << '|'
      << d.token_shapes << '|' << d.proxy_beta;
  for (const std::string& f : d.proxy_reviews) key << '|' << f;
  return cache.get_or_make<PrivateAiData>(key.str(), [&] { return load_privateai_data(d); });
}

// The central stand-in teacher does not depend on the grid point: trained once per data,
// model and training options in a run (the run's cache).
CentralTeacher kept_central_teacher(const PrivateAiData& data, const FederatedSettings& s, RunCache& cache) {
  return [&data, &s, &cache] {
    const TextClassifierOptions& m = s.model;
    const TrainOptions& t = s.teachers.central;
    std::ostringstream key;
    key << "privateai_central_teacher|" << &data << '|' << m.layers << '|' << m.heads << '|' << m.feedforward << '|'
        << m.max_tokens << '|' << m.train_embeddings << '|' << t.epochs << '|' << t.batch << '|' << t.learning_rate;
    return cache.get_or_make<CentralTeacherAnswers>(key.str(), [&] { return central_teacher_answers(data, m, t); });
  };
}

class FederatedExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "federated"; }
  std::string summary() const override {
    return "PrivateAI and its baselines (FedAvg, FedAdam, DP-FTRL, Robust-DPFL, FAFL) or central training: federated "
           "privacy identification under DP, "
           "with membership inference";
  }
  ConfigKeys keys() const override { return federated_keys(); }

  void check_point(const YAML::Node& config, const MechanismRegistry&) const override {
    const FederatedSettings s = read_federated_settings(config);
    using namespace federated_key;
    std::vector<std::pair<std::string, std::string>> files = {{kGlove.path(), s.data.glove},
                                                              {kCorpus.path(), s.data.corpus}};
    for (const std::string& f : s.data.proxy_reviews) files.emplace_back(kReviews.path(), f);
    if (!s.teachers.file.empty()) files.emplace_back(kTeachersFile.path(), s.teachers.file);
    check_data_files(files);
    check_encoder_model(s.encoder, s.data.max_tokens);
  }

  std::vector<std::string> number_columns() const override {
    std::vector<std::string> columns = {"epsilon", "epsilon_actual", "calibration_valid", "delta", "sigma",
                                        "sensitivity", "gaussian_releases", "noise_norm_over_theta",
                                        "client_rounds_max", "client_rounds_mean", "epsilon_composed_rdp",
                                        "epsilon_composed_exact", "epsilon_composed_pld", "parameters", "members",
                                        "psr", "recall", "false_flag_rate", "best_round_psr", "final_local_loss",
                                        "mean_distilled_units", "mean_kept_releases", "member_accuracy", "teachers_proxy_accuracy",
                                        "proxy_distance"};
    for (const std::string& t : standin_teacher_names()) columns.push_back("teacher_" + t + "_test_psr");
    for (const std::string& c : membership_columns(loss_and_lira_attack_names())) columns.push_back(c);
    return columns;
  }
  std::vector<std::string> string_columns() const override { return {"aggregator", "clip", "epsilon_scope"}; }

  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return federated_memory(config); }
  double estimate_seconds(const YAML::Node& config) const override {
    const FederatedSettings s = read_federated_settings(config);
    const double units_per_run =
        static_cast<double>(s.training.rounds) *
        (0.5 * static_cast<double>(s.data.candidate_units) * s.training.client_fraction * s.training.local.epochs +
         (s.training.distill.every > 0 ? static_cast<double>(s.data.proxy_units) / s.training.distill.every : 0.0));
    // A fixed part (the data, the central teacher) plus a rate per unit a federation trains
    // on, per transformer layer, for the target and each shadow federation; both set by hand.
    // configs/paper/privateai_eps.yaml: estimated 21 min on one core, measured 10 min on 2 cores
    // (docs/privateai.md).
    // An encoder counts as many Transformer layers as its multiply-adds per token make (the
    // Transformer's layer: 4 d^2 + 2 d ff at d = 100, ff = 128).
    constexpr double kFixedSeconds = 2.0;
    constexpr double kSecondsPerUnitAndLayer = 1.0e-3;
    const double layers = s.encoder.encoder()
                              ? std::max(1.0, encoder_size(s.encoder, s.model.train_embeddings).multiply_adds_per_token /
                                                  (4.0 * 100 * 100 + 2.0 * 100 * 128))
                              : static_cast<double>(s.model.layers);
    return kFixedSeconds + kSecondsPerUnitAndLayer * units_per_run * layers * static_cast<double>(1 + s.shadows);
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::vector<PlotRequest> plots;
    const auto others = [&](const std::string& x) {
      std::vector<std::string> g;
      for (const auto& s : swept) {
        if (s != x) g.push_back(s);
      }
      return g;
    };
    for (const std::string& x : kNumericAxes) {
      if (std::find(swept.begin(), swept.end(), x) == swept.end()) continue;
      const bool epsilon_axis = x == federated_key::kDpEpsilon.path();
      const bool log_x = epsilon_axis || x == federated_key::kProxyUnits.path() || x == federated_key::kProxyBeta.path();
      plots.push_back({"psr_vs_" + x, x, "psr", others(x), "", log_x, false, "PSR (test accuracy of flagging) vs " + x,
                       "", "psr"});
      if (epsilon_axis) plots.back().x_label = kNominalEpsilonLabel;
      if (epsilon_axis) {
        // The eps the noise really gives against the eps requested: on y = x where the
        // calibration is exact, above it where the classic formula is used at eps >= 1.
        PlotRequest actual{"epsilon_actual", x, "epsilon_actual", others(x), "epsilon", true, true,
                           "eps the noise really gives vs dp.epsilon requested (dashed: y = x)", "", ""};
        actual.theory_label = "requested (y = x)";
        actual.x_label = kNominalEpsilonLabel;
        plots.push_back(actual);
        for (const std::string& a : {std::string("loss"), std::string("lira_online")}) {
          plots.push_back({"auc_" + a, x, "auc_" + a, others(x), "", true, false, "membership inference AUC, " + a, "",
                           "mia"});
          plots.back().x_label = kNominalEpsilonLabel;
          plots.push_back({"tpr_" + a, x, "tpr_at_1%fpr_" + a, others(x), "", true, false, "TPR at 1% FPR, " + a, "",
                           "mia"});
          plots.back().x_label = kNominalEpsilonLabel;
        }
      }
    }
    PlotRequest by_round{"psr_by_round", "round", "psr_by_round", swept, "", false, false, "PSR after each round", "",
                         "rounds"};
    by_round.curves = true;
    for (const std::string& x : kNumericAxes) {  // every value of a numeric sweep would crowd it
      if (std::find(swept.begin(), swept.end(), x) != swept.end()) by_round.extremes_of.push_back(x);
    }
    if (!by_round.extremes_of.empty()) by_round.title += " (at the smallest and largest " + by_round.extremes_of[0] + ")";
    plots.push_back(by_round);
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const FederatedSettings s = read_federated_settings(input.config);
    input.phases.start("load");
    const PrivateAiData& data = run_data(s.data, input.cache);
    const bool distils = s.training.distill.every > 0;
    // An encoder reads the units as its own tokenizer's ids (federated_encoder.h).
    const EncoderRun* encoder = s.encoder.encoder()
                                    ? &encoder_run(s.encoder, data, s.data.max_tokens, s.model.train_embeddings, input.cache)
                                    : nullptr;
    const PrivateAiData& units = encoder ? encoder->units : data;
    input.phases.start("teachers");
    RunTeachers teachers =
        distils ? run_teachers(data, s.teachers, s.model, kept_central_teacher(data, s, input.cache)) : RunTeachers{};
    if (distils) teachers.proxy.ids = units.proxy.ids;  // the same proxy units, as the model reads them
    const auto seed = [&](const char* purpose, std::int64_t index) {
      return derive_seed(input.point.seed, input.point.point_id, std::string(purpose) + "." + std::to_string(index));
    };
    const std::int64_t C = data.candidates.ids.size(0);
    const at::Tensor members = random_members(C, seed("privateai.members", 0));
    input.phases.start("train_target");
    const FederatedRun target =
        run_federation(s, units, encoder, distils ? &teachers.proxy : nullptr, members, seed("privateai.federation", 0));
    // Shadow federations: the attacker's own random halves, same training, own noise.
    input.phases.start("train_shadows");
    at::Tensor shadow_phi = at::empty({s.shadows, C}, at::kDouble), shadow_in = at::empty({s.shadows, C}, at::kBool);
    for (std::int64_t k = 0; k < s.shadows; ++k) {
      shadow_in[k] = random_members(C, seed("privateai.shadow_members", k + 1));
      shadow_phi[k] = run_federation(s, units, encoder, distils ? &teachers.proxy : nullptr, shadow_in[k],
                                     seed("privateai.shadow_federation", k + 1))
                          .candidate_phi;
    }
    input.phases.stop();
    return summarise(s, data, teachers, target, members, shadow_phi, shadow_in);
  }

 private:
  // One row: the flagging metrics, the privacy columns and the membership attacks.
  static PointResult summarise(const FederatedSettings& s, const PrivateAiData& data, const RunTeachers& teachers,
                               const FederatedRun& target, const at::Tensor& members, const at::Tensor& shadow_phi,
                               const at::Tensor& shadow_in) {
    PointResult result;
    set_privacy_columns(result, s, target);
    const double psr = set_flagging_columns(result, data, teachers, target, members);
    // Membership inference: the loss attack needs no shadows; LiRA needs them.
    const MembershipReport report = membership_report(
        loss_and_lira_attack_names(), loss_and_lira_scores(target.candidate_phi, shadow_phi, shadow_in), members);
    for (const auto& [column, value] : report.numbers) result.set(column, value);
    std::ostringstream headline;
    headline.precision(3);
    headline << "psr=" << psr << " ";
    for (const AttackOutcome& a : report.outcomes) {
      if (a.ran && (a.attack == "loss" || a.attack == "lira_online")) headline << a.attack << "_auc=" << a.roc.auc << " ";
    }
    result.set("aggregator", aggregation_name(s.method));
    result.headline = headline.str();
    return result;
  }

  // Privacy: dp.epsilon as requested (nominal) next to what the noise really gives, every total
  // recomputed from the stored sigma and sensitivity (composed_privacy.h).
  static void set_privacy_columns(PointResult& result, const FederatedSettings& s, const FederatedRun& target) {
    const FederatedNoise& noise = target.noise;
    const ComposedClientPrivacy composed = composed_client_privacy(noise, target.delta, s.clients, target.rounds);
    result.set("epsilon", s.training.dp.epsilon);
    result.set("epsilon_actual", composed.epsilon_actual);
    result.set("calibration_valid", composed.epsilon_actual <= s.training.dp.epsilon * (1 + 1e-9) ? 1.0 : 0.0);
    result.set("epsilon_scope", noise.epsilon_per_round ? "round" : "run");
    result.set("delta", target.delta);
    result.set("sigma", noise.sigma);
    result.set("sensitivity", noise.sensitivity);
    result.set("gaussian_releases", static_cast<double>(noise.releases));
    result.set("noise_norm_over_theta",
               noise.sigma * std::sqrt(static_cast<double>(target.parameters)) / s.training.dp.clip_norm);
    result.set("client_rounds_max", composed.client_rounds_max);
    result.set("client_rounds_mean", composed.client_rounds_mean);
    result.set("epsilon_composed_rdp", composed.epsilon_rdp);
    result.set("epsilon_composed_exact", composed.epsilon_exact);
    result.set("epsilon_composed_pld", composed.epsilon_pld);
    result.set("clip", s.training.dp.enabled ? to_string(s.training.dp.clip) : "none");
  }

  // PSR and what the flagging model does, round by round; returns the PSR.
  static double set_flagging_columns(PointResult& result, const PrivateAiData& data, const RunTeachers& teachers,
                                     const FederatedRun& target, const at::Tensor& members) {
    const double psr = flag_accuracy(target.test_answers, data.test.labels);
    const at::Tensor flagged = target.test_answers.gt(0.5), truth = data.test.labels.gt(0.5);
    const double recall = flagged.logical_and(truth).sum().item<double>() / std::max(1.0, truth.sum().item<double>());
    const double false_flags =
        flagged.logical_and(truth.logical_not()).sum().item<double>() / std::max(1.0, truth.logical_not().sum().item<double>());
    std::vector<double> rounds, psr_by_round, distilled;
    double best = 0, distilled_total = 0, kept_total = 0;
    for (const RoundRecord& r : target.rounds) {
      rounds.push_back(static_cast<double>(r.round));
      psr_by_round.push_back(r.evaluation);
      distilled.push_back(static_cast<double>(r.distilled_units));
      best = std::max(best, r.evaluation);
      distilled_total += static_cast<double>(r.distilled_units);
      kept_total += static_cast<double>(r.kept_releases);
    }
    const at::Tensor member_rows = members.nonzero().squeeze(1);
    // phi > 0 <=> the model gives the true label more than 1/2.
    const double member_accuracy = target.candidate_phi.index_select(0, member_rows).gt(0).to(at::kDouble).mean().item<double>();
    result.set("parameters", static_cast<double>(target.parameters));
    result.set("members", static_cast<double>(target.members));
    result.set("psr", psr);
    result.set("recall", recall);
    result.set("false_flag_rate", false_flags);
    result.set("best_round_psr", best);
    result.set("final_local_loss", target.rounds.back().local_loss);
    result.set("mean_distilled_units", distilled_total / static_cast<double>(target.rounds.size()));
    result.set("mean_kept_releases", kept_total / static_cast<double>(target.rounds.size()));
    result.set("member_accuracy", member_accuracy);
    result.set("teachers_proxy_accuracy", teachers.proxy_accuracy);
    result.set("proxy_distance", data.proxy_distance);
    for (const std::string& name : standin_teacher_names()) {
      double value = NAN;  // not among this run's teachers
      for (const auto& [teacher, v] : teachers.test_psr) {
        if (teacher == name) value = v;
      }
      result.set("teacher_" + name + "_test_psr", value);
    }
    result.curves = {{"round", rounds}, {"psr_by_round", psr_by_round}, {"distilled_by_round", distilled}};
    return psr;
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_federated_experiment() { return std::make_unique<FederatedExperiment>(); }

}  // namespace embpriv
