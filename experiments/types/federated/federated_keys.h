#pragma once
// The keys of experiment type `federated` (PrivateAI, issue 7), declared once as typed keys
// (experiments/engine/typed_key.h): federated_settings.cpp lists them and reads a point's
// settings through them, the memory estimate and the figures name them through them. Defaults
// that are a library struct's (PrivateAiDataSettings, FederatedOptions, LocalDpOptions,
// FedAdamOptions, FaflOptions, TextClassifierOptions) are taken from the struct; a number's
// default is also written as the text the stored configs hold ("1.0e-4"), which must read back
// as the struct's value (typed_key.h: number_key). The keys shared with type `accountant` are in
// experiments/types/shared/federation_keys.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/privateai/privateai_data.h"
#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/data_keys.h"
#include "experiments/types/federated/federated_encoder.h"
#include "experiments/types/shared/federation_keys.h"
#include "federated/federated_options.h"
#include "federated/privateai_teachers.h"
#include "models/text_classifier.h"

namespace embpriv {

// data.proxy_domain: the server's proxy units are e-mails like the clients' or review sentences
// (the PrivateAI paper's Table 2).
enum class ProxyDomain { emails, reviews };

// An Adam training's three keys under one prefix (a client's, the server's distillation, the
// central teacher's).
struct TrainKeys {
  Key<std::int64_t> epochs, batch;
  Key<double> learning_rate;
  TrainKeys(const std::string& prefix, std::int64_t fallback_epochs, const std::string& learning_rate_yaml,
            const std::string& help)
      : epochs(integer_key(prefix + ".epochs", fallback_epochs, help + ": epochs").at_least(1)),
        batch(integer_key(prefix + ".batch", TrainOptions{}.batch, help + ": batch size").at_least(1)),
        learning_rate(number_key(prefix + ".learning_rate", learning_rate_yaml, help + ": Adam's learning rate").above(0)) {}
  TrainOptions read(const YAML::Node& config) const { return {epochs(config), batch(config), learning_rate(config)}; }
};

// The names of a library enum (its to_string), with `published` first: each method's own choice
// (federated/protocol.h: published_choices), read as no value.
template <class E>
Choices<std::optional<E>> published_or(const std::vector<E>& values) {
  Choices<std::optional<E>> choices = {{std::nullopt, "published"}};
  for (E value : values) choices.emplace_back(value, to_string(value));
  return choices;
}

namespace federated_key {

// data.*: the PrivateAI data set (data/privateai/privateai_data.h).
inline const Key<std::string>& kGlove = kGloveTableKey;
inline const Key<std::string>& kCorpus = kSpamAssassinKey;
inline const Key<std::int64_t> kCandidateUnits =
    integer_key("data.candidate_units", PrivateAiDataSettings{}.candidate_units,
                "of the clients' e-mails; a run trains on a random half (|S| = 400)")
        .at_least(1);
inline const Key<std::int64_t> kUnitsPerClient =
    integer_key("data.units_per_client", 0, "> 0: |S| = clients x this instead (candidate_units = 2 |S|)").at_least(0);
inline const Key<std::int64_t> kProxyUnits =
    integer_key("data.proxy_units", PrivateAiDataSettings{}.proxy_units, "the server's unlabelled proxy set").at_least(1);
inline const ChoiceKey<ProxyDomain> kProxyDomain =
    choice_key("data.proxy_domain", ProxyDomain::emails, {{ProxyDomain::emails, "emails"}, {ProxyDomain::reviews, "reviews"}},
               "reviews: the proxy set from another domain (paper's Table 2)");
inline const Key<double> kProxyBeta =
    number_key("data.proxy_beta", PrivateAiDataSettings{}.proxy_beta, "0",
               "> 0: transfer heterogeneity (paper's Fig. 5): the proxy's kinds of units ~ Dirichlet(beta x the "
               "clients' shares); 0: drawn like the clients'")
        .at_least(0);
inline const Key<std::vector<std::string>> kReviews =
    texts_key("data.reviews", {"sentiment/yelp.json", "sentiment/amazon.json", "sentiment/imdb.json"},
              "the review sentences, when data.proxy_domain is reviews");
inline const Key<std::int64_t> kPublicUnits =
    integer_key("data.public_units", PrivateAiDataSettings{}.public_units, "the central stand-in teacher's labelled split")
        .at_least(1);
inline const Key<std::int64_t> kTestUnits =
    integer_key("data.test_units", PrivateAiDataSettings{}.test_units, "PSR is measured here").at_least(1);
inline const Key<double> kPrivateShare =
    number_key("data.private_share", PrivateAiDataSettings{}.private_share, "0.5",
               "of every part (the corpus holds 4.7% private units)")
        .above(0)
        .below(1);
inline const Key<std::int64_t> kMaxTokens =
    integer_key("data.max_tokens", PrivateAiDataSettings{}.max_tokens, "words per unit (longer units are cut)")
        .at_least(1)
        .at_most(512);
inline const Key<bool> kTokenShapes =
    boolean_key("data.token_shapes", PrivateAiDataSettings{}.token_shapes,
                "a word's row adds its case pattern, digits read as 0 (false: lower-cased GloVe words only)");
inline const Key<double> kScale = number_key("scale", "1", "multiplies every unit count of data").above(0);

// The federation (shared with type accountant: clients, rounds, client_fraction, dp.epsilon).
inline const ChoiceKey<FederatedMethod> kMethod = choice_key(
    "method", FederatedOptions{}.method,
    named_choices<FederatedMethod>({FederatedMethod::privateai, FederatedMethod::fedavg, FederatedMethod::fedadam,
                                    FederatedMethod::dp_ftrl, FederatedMethod::robust_dpfl, FederatedMethod::fafl,
                                    FederatedMethod::central},
                                   [](FederatedMethod m) { return to_string(m); }),
    "PrivateAI, one of its baselines, or central (all members' units in one place, no DP: the model's ceiling)");
using federation_key::kClientFraction;
using federation_key::kClients;
using federation_key::kDpEpsilon;
using federation_key::kRounds;
inline const Key<double> kAlpha = number_key("alpha", "1.0", "Dirichlet(alpha) non-IID split of the labels").above(0);
inline const TrainKeys kLocal("local", 2, "1.0e-3", "each client's training");

// dp.*: each client's local DP (federated/local_dp.h).
inline const Key<bool> kDpEnabled = boolean_key("dp.enabled", LocalDpOptions{}.enabled, "false: no local DP");
// dp.delta 0 is LocalDpOptions' "not given", which the run resolves to 1/|S| (the paper's choice).
inline const Key<double> kDpDelta =
    number_key("dp.delta", LocalDpOptions{}.delta, "0", "0: 1/|S|, the paper's choice").at_least(0).below(1);
inline const Key<double> kDpClipNorm = number_key("dp.clip_norm", LocalDpOptions{}.clip_norm, "1.0", "theta").above(0);
inline const ChoiceKey<std::optional<ClipTarget>> kDpClip =
    choice_key("dp.clip", std::optional<ClipTarget>(), published_or<ClipTarget>({ClipTarget::parameters, ClipTarget::update}),
               "published (each method's own: update for dp_ftrl, which clips updates by design, parameters for the "
               "others, eq. (4)), parameters or update (the common variant)");
inline const ChoiceKey<std::optional<NoiseCalibration>> kDpCalibration = choice_key(
    "dp.calibration", std::optional<NoiseCalibration>(),
    published_or<NoiseCalibration>({NoiseCalibration::classic, NoiseCalibration::analytic, NoiseCalibration::rdp}),
    "published (each method's own: rdp for robust_dpfl, classic for the others), classic (sigma^2 = 8 theta^2 "
    "ln(1.25/delta)/eps^2, proven for eps < 1 only), analytic (exact) or rdp");
inline const ChoiceKey<std::optional<EpsilonBudget>> kDpBudget =
    choice_key("dp.budget", std::optional<EpsilonBudget>(), published_or<EpsilonBudget>({EpsilonBudget::round, EpsilonBudget::run}),
               "what dp.epsilon budgets: published (the run for dp_ftrl and robust_dpfl, each round for the others), "
               "round (each release) or run (a client's whole run: sigma for the composed total)");

// The servers of the methods (federated/aggregation.h, dp_ftrl.h, robust_dpfl.h, fafl.h).
inline const Key<double> kServerEta =
    number_key("server.eta", FedAdamOptions{}.eta, "1.0e-4", "the server's learning rate").above(0);
inline const Key<double> kServerTau0 =
    number_key("server.tau0", FedAdamOptions{}.tau0, "1.0e-8", "the adaptivity (epsilon of Adam)").above(0);
inline const Key<double> kServerTau1 =
    number_key("server.tau1", FedAdamOptions{}.tau1, "0.9", "the first moment's decay").at_least(0).below(1);
inline const Key<double> kServerTau2 =
    number_key("server.tau2", FedAdamOptions{}.tau2, "0.999", "the second moment's decay").at_least(0).below(1);
inline const Key<double> kFtrlEta =
    number_key("ftrl.eta", FederatedOptions{}.ftrl_eta, "1.0", "the server's learning rate 1/lambda (1: FedAvg without noise)")
        .above(0);
inline const Key<double> kRobustZ =
    number_key("robust.z", FederatedOptions{}.robust_z, "3", "the noise-aware filter's band in standard deviations").above(0);
inline const Key<std::int64_t> kFaflSteps =
    integer_key("fafl.steps", FaflOptions{}.steps, "q: local steps per round (4: the Adam clients' work at the defaults)")
        .at_least(1);
inline const Key<std::int64_t> kFaflBatch = integer_key("fafl.batch", FaflOptions{}.batch, "units per local step").at_least(1);
inline const Key<double> kFaflLearningRate =
    number_key("fafl.learning_rate", FaflOptions{}.learning_rate, "3.0e-3", "gamma").above(0);
inline const Key<double> kFaflMomentum =
    number_key("fafl.momentum", FaflOptions{}.momentum, "0.1", "a: STORM's weight of the fresh gradient").above(0).at_most(1);
inline const Key<double> kFaflRho =
    number_key("fafl.rho", FaflOptions{}.rho, "0.9", "the adaptive matrix's decay").at_least(0).below(1);
inline const Key<double> kFaflLambda =
    number_key("fafl.lambda", FaflOptions{}.lambda, "1.0e-2", "the adaptive matrix's floor").above(0);

// distill.*: PrivateAI's distillation (federated/knowledge_alignment.h).
inline const Key<std::int64_t> kDistillEvery =
    integer_key("distill.every", DistillationOptions{}.every, "I_kd: distil after every I_kd-th aggregation (0: never)").at_least(0);
inline const Key<double> kDistillMu =
    number_key("distill.mu", DistillationOptions{}.mu, "0.9", "keep proxy units whose fused answer is this confident")
        .at_least(0.5)
        .below(1);
inline const Key<bool> kDistillAlign =
    boolean_key("distill.align", DistillationOptions{}.align, "false: train on the teachers' mean answer, unfiltered");
inline const Key<bool> kDistillTeachers = boolean_key("distill.teachers", DistillationOptions{}.use_teachers,
                                                      "false: the server's own answers stand in for the teachers'");
inline const TrainKeys kDistillTrain("distill", 1, "1.0e-3",
                                     "the server's Adam on the kept units (paper: learning rate 1e-4)");

// teachers.*: the foundation models' answers (federated/privateai_teachers.h).
inline const Key<std::vector<std::string>> kTeachersStandin =
    texts_key("teachers.standin", standin_teacher_names(), "shipped stand-ins (docs/privateai.md)")
        .one_of(standin_teacher_names());
inline const Key<std::string> kTeachersFile =
    text_key("teachers.file", "", "JSONL or HDF5 answers (data/privateai/teacher_answers.h) instead of the stand-ins");
inline const Key<std::string> kTeachersExport =
    text_key("teachers.export", "", "a path prefix: write PREFIX.proxy.jsonl and PREFIX.answers.jsonl");
inline const TrainKeys kTeachersCentral("teachers.central", 4, "1.0e-3", "the central teacher's training");

// model.*: the privacy-identification model (federated_encoder.h: the Transformer of
// models/text_classifier.h or a Hugging Face encoder), and the membership attack.
inline const ChoiceKey<PrivacyModelKind> kModelKind = choice_key(
    "model.kind", EncoderModelSettings{}.kind,
    named_choices<PrivacyModelKind>({PrivacyModelKind::transformer, PrivacyModelKind::bert, PrivacyModelKind::roberta},
                                    [](PrivacyModelKind k) { return to_string(k); }),
    "transformer (ours, over the GloVe rows), bert or roberta (model.path's encoder with a two-label classification "
    "head, on its own tokenizer's ids; docs/privateai.md)");
inline const Key<std::string> kModelPath =
    text_key("model.path", "",
             "bert, roberta: a Hugging Face folder (config.json, tokenizer.json, model.safetensors); without weights, a "
             "random-init model of its config.json");
inline const Key<std::int64_t> kModelLayers =
    integer_key("model.layers", TextClassifierOptions{}.layers, "Transformer layers (model.kind transformer)").at_least(1);
inline const Key<std::int64_t> kModelHeads =
    integer_key("model.heads", TextClassifierOptions{}.heads, "attention heads (must divide the GloVe width 100)")
        .at_least(1);
inline const Key<std::int64_t> kModelFeedforward =
    integer_key("model.feedforward", TextClassifierOptions{}.feedforward, "width of the feed-forward layer").at_least(1);
inline const Key<bool> kModelTrainEmbeddings =
    boolean_key("model.train_embeddings", TextClassifierOptions{}.train_embeddings,
                "true: the GloVe rows (an encoder's word embeddings) are trained and shared too");
inline const Key<std::int64_t> kAttackShadows =
    integer_key("attack.shadows", 2, "shadow federations for LiRA: 0 (the loss attack only) or >= 2").at_least(0);

}  // namespace federated_key
}  // namespace embpriv
