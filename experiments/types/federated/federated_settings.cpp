#include "experiments/types/federated/federated_settings.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/types/federated/federated_keys.h"
#include "federated/protocol.h"

namespace embpriv {
namespace {

using namespace federated_key;

void append(ConfigKeys& keys, ConfigKeys more) {
  for (ConfigKey& key : more) keys.push_back(std::move(key));
}

ConfigKeys train_keys(const TrainKeys& train) { return {train.epochs, train.batch, train.learning_rate}; }

ConfigKeys data_keys() {
  return {kGlove,        kCorpus,       kCandidateUnits, kUnitsPerClient, kProxyUnits, kProxyDomain, kProxyBeta,
          kReviews,      kPublicUnits,  kTestUnits,      kPrivateShare,   kMaxTokens,  kTokenShapes, kScale};
}

ConfigKeys federation_keys() {
  ConfigKeys keys = {
      kMethod, kClients, kAlpha, kRounds, kClientFraction,
      ConfigKey::section("local", "each client's Adam (paper: learning rate 1e-4, docs/privateai.md)").flow(),
  };
  append(keys, train_keys(kLocal));
  return keys;
}

ConfigKeys dp_and_server_keys() {
  return {
      kDpEnabled, kDpEpsilon, kDpDelta, kDpClipNorm, kDpClip, kDpCalibration, kDpBudget,
      ConfigKey::section("server", "FedAdam, eq. (5)").flow(),
      kServerEta, kServerTau0, kServerTau1, kServerTau2,
      ConfigKey::section("ftrl", "DP-FTRL: the trusted server's tree noise, eps for the whole run").flow(),
      kFtrlEta,
      ConfigKey::section("robust", "Robust-DPFL: RDP noise, eps for the whole run").flow(),
      kRobustZ,
      ConfigKey::section("fafl", "FAFL (FAFED): STORM local steps, one shared adaptive matrix").flow(),
      kFaflSteps, kFaflBatch, kFaflLearningRate, kFaflMomentum, kFaflRho, kFaflLambda,
  };
}

ConfigKeys distill_keys() {
  ConfigKeys keys = {
      ConfigKey::section("distill", "PrivateAI only"), kDistillEvery, kDistillMu, kDistillAlign, kDistillTeachers,
  };
  append(keys, train_keys(kDistillTrain));
  return keys;
}

ConfigKeys teacher_keys() {
  ConfigKeys keys = {
      kTeachersStandin, kTeachersFile, kTeachersExport,
      ConfigKey::section("teachers.central", "the central teacher's training").flow(),
  };
  append(keys, train_keys(kTeachersCentral));
  return keys;
}

ConfigKeys model_and_attack_keys() {
  return {
      ConfigKey::section("model", "the privacy-identification model every party trains").flow(),
      kModelKind, kModelPath, kModelLayers, kModelHeads, kModelFeedforward, kModelTrainEmbeddings, kAttackShadows,
  };
}

std::int64_t scaled_units(const YAML::Node& c, const Key<std::int64_t>& key, double scale) {
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(key(c)) * scale));
}

PrivateAiDataSettings read_data(const YAML::Node& c, double scale) {
  PrivateAiDataSettings d;
  d.glove = kGlove(c);
  d.corpus = kCorpus(c);
  if (kProxyDomain(c) == ProxyDomain::reviews) {
    d.proxy_reviews = kReviews(c);
    require_key(!d.proxy_reviews.empty(), kReviews.path(), "must name at least one file of review sentences");
  }
  d.proxy_beta = kProxyBeta(c);
  require_key(d.proxy_beta == 0 || d.proxy_reviews.empty(), kProxyBeta.path(),
              "skews the proxy e-mails against the clients'; with data.proxy_domain: reviews set it to 0");
  d.candidate_units = scaled_units(c, kCandidateUnits, scale);
  d.proxy_units = scaled_units(c, kProxyUnits, scale);
  d.public_units = scaled_units(c, kPublicUnits, scale);
  d.test_units = scaled_units(c, kTestUnits, scale);
  require_key(d.candidate_units >= 4, kCandidateUnits.path(), "must be >= 4 (members are a random half)");
  d.private_share = kPrivateShare(c);
  d.max_tokens = kMaxTokens(c);
  d.token_shapes = kTokenShapes(c);
  return d;
}


// K clients; data.units_per_client > 0 sets the candidates to twice K times it.
void read_clients(const YAML::Node& c, FederatedSettings& s) {
  s.clients = kClients(c);
  const std::int64_t per_client = kUnitsPerClient(c);
  if (per_client > 0) {  // |S| = K * units_per_client: the candidates are twice that
    s.data.candidate_units = std::max<std::int64_t>(4, std::llround(2.0 * static_cast<double>(s.clients * per_client) * s.scale));
  }
  require_key(s.clients <= s.data.candidate_units / 2, kClients.path(),
              "must be in [1, the members (" + std::to_string(s.data.candidate_units / 2) + ")]");
  s.alpha = kAlpha(c);
}

// dp.clip: `published` is each method's own choice; DP-FTRL's server sums clipped updates by
// design (federated/dp_ftrl.h), so clipping its parameters is refused, not silently changed.
ClipTarget read_clip(const YAML::Node& c, FederatedMethod method) {
  const std::optional<ClipTarget> chosen = kDpClip(c);
  if (method == FederatedMethod::dp_ftrl) {
    require_key(chosen != ClipTarget::parameters, kDpClip.path(),
                "is parameters, but DP-FTRL clips each client's update by design (its server adds the tree noise "
                "to the sum of clipped updates): set dp.clip: update or published");
    return ClipTarget::update;
  }
  return chosen ? *chosen : published_choices(method).clip;
}

// dp.calibration and dp.budget: `published` is each method's own (federated/protocol.h).
NoiseCalibration read_calibration(const YAML::Node& c, FederatedMethod method) {
  const std::optional<NoiseCalibration> chosen = kDpCalibration(c);
  return chosen ? *chosen : published_choices(method).calibration;
}

EpsilonBudget read_budget(const YAML::Node& c, FederatedMethod method) {
  const std::optional<EpsilonBudget> chosen = kDpBudget(c);
  if (method == FederatedMethod::dp_ftrl) {
    require_key(chosen != EpsilonBudget::round, kDpBudget.path(),
                "is round, but DP-FTRL's tree noise is one mechanism for the whole run: set dp.budget: run or "
                "published");
  }
  return chosen ? *chosen : published_choices(method).budget;
}

LocalDpOptions read_dp(const YAML::Node& c, FederatedMethod method, double* delta_setting) {
  LocalDpOptions dp;
  dp.enabled = kDpEnabled(c);
  dp.epsilon = kDpEpsilon(c);
  *delta_setting = kDpDelta(c);
  dp.clip_norm = kDpClipNorm(c);
  dp.clip = read_clip(c, method);
  dp.calibration = read_calibration(c, method);
  dp.budget = read_budget(c, method);
  return dp;
}

FedAdamOptions read_fedadam(const YAML::Node& c) {
  return {kServerEta(c), kServerTau0(c), kServerTau1(c), kServerTau2(c)};
}

DistillationOptions read_distill(const YAML::Node& c, FederatedMethod method) {
  DistillationOptions d;
  d.every = kDistillEvery(c);
  if (method != FederatedMethod::privateai) d.every = 0;  // the baselines do not distil
  d.mu = kDistillMu(c);
  d.align = kDistillAlign(c);
  d.use_teachers = kDistillTeachers(c);
  d.train = kDistillTrain.read(c);
  return d;
}

FederatedOptions read_training(const YAML::Node& c, FederatedMethod method, double* delta_setting) {
  FederatedOptions t;
  t.rounds = kRounds(c);
  t.client_fraction = kClientFraction(c);
  t.local = kLocal.read(c);
  t.dp = read_dp(c, method, delta_setting);
  t.fedadam = read_fedadam(c);
  t.method = method;
  t.distill = read_distill(c, method);
  t.ftrl_eta = kFtrlEta(c);
  t.robust_z = kRobustZ(c);
  t.fafl = {kFaflSteps(c), kFaflBatch(c), kFaflLearningRate(c), kFaflMomentum(c), kFaflRho(c), kFaflLambda(c)};
  if (method == FederatedMethod::central) {  // one client, every round, no noise: plain training
    t.client_fraction = 1;
    t.dp.enabled = false;
  }
  return t;
}

TeacherSettings read_teachers(const YAML::Node& c) {
  TeacherSettings t;
  t.standin = kTeachersStandin(c);
  t.file = kTeachersFile(c);
  t.export_prefix = kTeachersExport(c);
  require_key(!t.file.empty() || !t.standin.empty(), kTeachersStandin.path(),
              "is empty and teachers.file is not set: PrivateAI has no teacher");
  t.central = kTeachersCentral.read(c);
  return t;
}

TextClassifierOptions read_model(const YAML::Node& c, std::int64_t max_tokens) {
  TextClassifierOptions m;
  m.layers = kModelLayers(c);
  m.heads = kModelHeads(c);
  m.feedforward = kModelFeedforward(c);
  m.train_embeddings = kModelTrainEmbeddings(c);
  m.max_tokens = max_tokens;
  require_key(100 % m.heads == 0, kModelHeads.path(), "must divide the GloVe width 100 (1, 2, 4, 5, 10, 20, 25, 50, 100)");
  return m;
}

}  // namespace

ConfigKeys federated_keys() {
  ConfigKeys keys = data_keys();
  append(keys, federation_keys());
  append(keys, dp_and_server_keys());
  append(keys, distill_keys());
  append(keys, teacher_keys());
  append(keys, model_and_attack_keys());
  return keys;
}

FederatedSettings read_federated_settings(const YAML::Node& c) {
  FederatedSettings s;
  s.scale = kScale(c);
  s.data = read_data(c, s.scale);
  s.method = kMethod(c);
  read_clients(c, s);
  if (s.method == FederatedMethod::central) s.clients = 1;  // all the members' units in one place
  s.training = read_training(c, s.method, &s.delta_setting);
  s.teachers = read_teachers(c);
  s.model = read_model(c, s.data.max_tokens);
  s.encoder = read_encoder_model(c);
  s.shadows = kAttackShadows(c);
  require_key(s.shadows != 1, kAttackShadows.path(),
              "must be 0 (the loss attack only) or >= 2 (LiRA fits a Gaussian per example), got 1");
  return s;
}

}  // namespace embpriv
