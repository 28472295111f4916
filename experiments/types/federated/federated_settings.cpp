#include "experiments/types/federated/federated_settings.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/types/shared/data_keys.h"
#include "federated/protocol.h"

namespace embpriv {
namespace {

// The three Adam trainings (a client's, the server's distillation, the central teacher's).
ConfigKeys train_keys(const std::string& prefix, std::int64_t epochs, const std::string& learning_rate,
                      const std::string& help) {
  return {ConfigKey::integer(prefix + ".epochs", epochs, help + ": epochs").at_least(1),
          ConfigKey::integer(prefix + ".batch", 32, help + ": batch size").at_least(1),
          ConfigKey::number(prefix + ".learning_rate", learning_rate, help + ": Adam's learning rate").above(0)};
}

void append(ConfigKeys& keys, ConfigKeys more) {
  for (ConfigKey& key : more) keys.push_back(std::move(key));
}

ConfigKeys data_keys() {
  return {
      glove_table_key(),
      spam_assassin_key(),
      ConfigKey::integer("data.candidate_units", 800,
                         "of the clients' e-mails; a run trains on a random half (|S| = 400)")
          .at_least(1),
      ConfigKey::integer("data.units_per_client", 0, "> 0: |S| = clients x this instead (candidate_units = 2 |S|)")
          .at_least(0),
      ConfigKey::integer("data.proxy_units", 600, "the server's unlabelled proxy set").at_least(1),
      ConfigKey::text("data.proxy_domain", "emails", "reviews: the proxy set from another domain (paper's Table 2)")
          .one_of({"emails", "reviews"}),
      ConfigKey::number("data.proxy_beta", "0",
                        "> 0: transfer heterogeneity (paper's Fig. 5): the proxy's kinds of units ~ "
                        "Dirichlet(beta x the clients' shares); 0: drawn like the clients'")
          .at_least(0),
      ConfigKey::texts("data.reviews", {"sentiment/yelp.json", "sentiment/amazon.json", "sentiment/imdb.json"},
                       "the review sentences, when data.proxy_domain is reviews"),
      ConfigKey::integer("data.public_units", 600, "the central stand-in teacher's labelled split").at_least(1),
      ConfigKey::integer("data.test_units", 600, "PSR is measured here").at_least(1),
      ConfigKey::number("data.private_share", "0.5", "of every part (the corpus holds 4.7% private units)")
          .above(0)
          .below(1),
      ConfigKey::integer("data.max_tokens", 32, "words per unit (longer units are cut)").at_least(1).at_most(512),
      ConfigKey::boolean("data.token_shapes", true,
                         "a word's row adds its case pattern, digits read as 0 (false: lower-cased GloVe words only)"),
      ConfigKey::number("scale", "1", "multiplies every unit count of data").above(0),
  };
}

ConfigKeys federation_keys() {
  ConfigKeys keys = {
      ConfigKey::text("method", "privateai",
                      "PrivateAI, one of its baselines, or central (all members' units in one place, no DP: the "
                      "model's ceiling)")
          .one_of({"privateai", "fedavg", "fedadam", "dp_ftrl", "robust_dpfl", "fafl", "central"}),
      ConfigKey::integer("clients", 10, "K (at most the members, half the candidates)").at_least(1),
      ConfigKey::number("alpha", "1.0", "Dirichlet(alpha) non-IID split of the labels").above(0),
      ConfigKey::integer("rounds", 10, "federated rounds").at_least(1),
      ConfigKey::number("client_fraction", "0.8", "clients sampled each round").above(0).at_most(1),
      ConfigKey::section("local", "each client's Adam (paper: learning rate 1e-4, docs/privateai.md)").flow(),
  };
  append(keys, train_keys("local", 2, "1.0e-3", "each client's training"));
  return keys;
}

ConfigKeys dp_and_server_keys() {
  return {
      ConfigKey::boolean("dp.enabled", true, "false: no local DP"),
      ConfigKey::number("dp.epsilon", "1", "the clients' local DP budget").above(0),
      ConfigKey::number("dp.delta", "0", "0: 1/|S|, the paper's choice").at_least(0).below(1),
      ConfigKey::number("dp.clip_norm", "1.0", "theta").above(0),
      ConfigKey::text("dp.clip", "published",
                      "published (each method's own: update for dp_ftrl, which clips updates by design, parameters "
                      "for the others, eq. (4)), parameters or update (the common variant)")
          .one_of({"published", "parameters", "update"}),
      ConfigKey::text("dp.calibration", "published",
                      "published (each method's own: rdp for robust_dpfl, classic for the others), classic "
                      "(sigma^2 = 8 theta^2 ln(1.25/delta)/eps^2, proven for eps < 1 only), analytic (exact) or rdp")
          .one_of({"published", "classic", "analytic", "rdp"}),
      ConfigKey::text("dp.budget", "published",
                      "what dp.epsilon budgets: published (the run for dp_ftrl and robust_dpfl, each round for the "
                      "others), round (each release) or run (a client's whole run: sigma for the composed total)")
          .one_of({"published", "round", "run"}),
      ConfigKey::section("server", "FedAdam, eq. (5)").flow(),
      ConfigKey::number("server.eta", "1.0e-4", "the server's learning rate").above(0),
      ConfigKey::number("server.tau0", "1.0e-8", "the adaptivity (epsilon of Adam)").above(0),
      ConfigKey::number("server.tau1", "0.9", "the first moment's decay").at_least(0).below(1),
      ConfigKey::number("server.tau2", "0.999", "the second moment's decay").at_least(0).below(1),
      ConfigKey::section("ftrl", "DP-FTRL: the trusted server's tree noise, eps for the whole run").flow(),
      ConfigKey::number("ftrl.eta", "1.0", "the server's learning rate 1/lambda (1: FedAvg without noise)").above(0),
      ConfigKey::section("robust", "Robust-DPFL: RDP noise, eps for the whole run").flow(),
      ConfigKey::number("robust.z", "3", "the noise-aware filter's band in standard deviations").above(0),
      ConfigKey::section("fafl", "FAFL (FAFED): STORM local steps, one shared adaptive matrix").flow(),
      ConfigKey::integer("fafl.steps", 4, "q: local steps per round (4: the Adam clients' work at the defaults)").at_least(1),
      ConfigKey::integer("fafl.batch", 32, "units per local step").at_least(1),
      ConfigKey::number("fafl.learning_rate", "3.0e-3", "gamma").above(0),
      ConfigKey::number("fafl.momentum", "0.1", "a: STORM's weight of the fresh gradient").above(0).at_most(1),
      ConfigKey::number("fafl.rho", "0.9", "the adaptive matrix's decay").at_least(0).below(1),
      ConfigKey::number("fafl.lambda", "1.0e-2", "the adaptive matrix's floor").above(0),
  };
}

ConfigKeys distill_keys() {
  ConfigKeys keys = {
      ConfigKey::section("distill", "PrivateAI only"),
      ConfigKey::integer("distill.every", 1, "I_kd: distil after every I_kd-th aggregation (0: never)").at_least(0),
      ConfigKey::number("distill.mu", "0.9", "keep proxy units whose fused answer is this confident")
          .at_least(0.5)
          .below(1),
      ConfigKey::boolean("distill.align", true, "false: train on the teachers' mean answer, unfiltered"),
      ConfigKey::boolean("distill.teachers", true, "false: the server's own answers stand in for the teachers'"),
  };
  append(keys, train_keys("distill", 1, "1.0e-3", "the server's Adam on the kept units (paper: learning rate 1e-4)"));
  return keys;
}

ConfigKeys teacher_keys() {
  ConfigKeys keys = {
      ConfigKey::texts("teachers.standin", standin_teacher_names(), "shipped stand-ins (docs/privateai.md)")
          .one_of(standin_teacher_names()),
      ConfigKey::text("teachers.file", "", "JSONL or HDF5 answers (data/privateai/teacher_answers.h) instead of the stand-ins"),
      ConfigKey::text("teachers.export", "", "a path prefix: write PREFIX.proxy.jsonl and PREFIX.answers.jsonl"),
      ConfigKey::section("teachers.central", "the central teacher's training").flow(),
  };
  append(keys, train_keys("teachers.central", 4, "1.0e-3", "the central teacher's training"));
  return keys;
}

ConfigKeys model_and_attack_keys() {
  return {
      ConfigKey::section("model", "the Transformer classifier every party trains").flow(),
      ConfigKey::integer("model.layers", 1, "Transformer layers").at_least(1),
      ConfigKey::integer("model.heads", 4, "attention heads (must divide the GloVe width 100)").at_least(1),
      ConfigKey::integer("model.feedforward", 128, "width of the feed-forward layer").at_least(1),
      ConfigKey::boolean("model.train_embeddings", false, "true: the GloVe rows are trained too"),
      ConfigKey::integer("attack.shadows", 2, "shadow federations for LiRA: 0 (the loss attack only) or >= 2")
          .at_least(0),
  };
}

TrainOptions read_train(const YAML::Node& c, const std::string& prefix) {
  TrainOptions t;
  t.epochs = point_value<std::int64_t>(c, prefix + ".epochs");
  t.batch = point_value<std::int64_t>(c, prefix + ".batch");
  t.learning_rate = point_value<double>(c, prefix + ".learning_rate");
  return t;
}

std::int64_t scaled_units(const YAML::Node& c, const std::string& key, double scale) {
  const auto n = point_value<std::int64_t>(c, key);
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(n) * scale));
}

PrivateAiDataSettings read_data(const YAML::Node& c, double scale) {
  PrivateAiDataSettings d;
  d.glove = point_value<std::string>(c, "data.glove");
  d.corpus = point_value<std::string>(c, "data.corpus");
  if (point_value<std::string>(c, "data.proxy_domain") == "reviews") {
    d.proxy_reviews = point_value<std::vector<std::string>>(c, "data.reviews");
    require_key(!d.proxy_reviews.empty(), "data.reviews", "must name at least one file of review sentences");
  }
  d.proxy_beta = point_value<double>(c, "data.proxy_beta");
  require_key(d.proxy_beta == 0 || d.proxy_reviews.empty(), "data.proxy_beta",
              "skews the proxy e-mails against the clients'; with data.proxy_domain: reviews set it to 0");
  d.candidate_units = scaled_units(c, "data.candidate_units", scale);
  d.proxy_units = scaled_units(c, "data.proxy_units", scale);
  d.public_units = scaled_units(c, "data.public_units", scale);
  d.test_units = scaled_units(c, "data.test_units", scale);
  require_key(d.candidate_units >= 4, "data.candidate_units", "must be >= 4 (members are a random half)");
  d.private_share = point_value<double>(c, "data.private_share");
  d.max_tokens = point_value<std::int64_t>(c, "data.max_tokens");
  d.token_shapes = point_value<bool>(c, "data.token_shapes");
  return d;
}


// K clients; data.units_per_client > 0 sets the candidates to twice K times it.
void read_clients(const YAML::Node& c, FederatedSettings& s) {
  s.clients = point_value<std::int64_t>(c, "clients");
  const auto per_client = point_value<std::int64_t>(c, "data.units_per_client");
  if (per_client > 0) {  // |S| = K * units_per_client: the candidates are twice that
    s.data.candidate_units = std::max<std::int64_t>(4, std::llround(2.0 * static_cast<double>(s.clients * per_client) * s.scale));
  }
  require_key(s.clients <= s.data.candidate_units / 2, "clients",
              "must be in [1, the members (" + std::to_string(s.data.candidate_units / 2) + ")]");
  s.alpha = point_value<double>(c, "alpha");
}

// dp.clip: `published` is each method's own choice; DP-FTRL's server sums clipped updates by
// design (federated/dp_ftrl.h), so clipping its parameters is refused, not silently changed.
ClipTarget read_clip(const YAML::Node& c, FederatedMethod method) {
  const auto name = point_value<std::string>(c, "dp.clip");
  if (method == FederatedMethod::dp_ftrl) {
    require_key(name != "parameters", "dp.clip",
                "is parameters, but DP-FTRL clips each client's update by design (its server adds the tree noise "
                "to the sum of clipped updates): set dp.clip: update or published");
    return ClipTarget::update;
  }
  return name == "published" ? published_choices(method).clip : parse_clip_target(name);
}

// dp.calibration and dp.budget: `published` is each method's own (federated/protocol.h).
NoiseCalibration read_calibration(const YAML::Node& c, FederatedMethod method) {
  const auto name = point_value<std::string>(c, "dp.calibration");
  return name == "published" ? published_choices(method).calibration : parse_noise_calibration(name);
}

EpsilonBudget read_budget(const YAML::Node& c, FederatedMethod method) {
  const auto name = point_value<std::string>(c, "dp.budget");
  if (method == FederatedMethod::dp_ftrl) {
    require_key(name != "round", "dp.budget",
                "is round, but DP-FTRL's tree noise is one mechanism for the whole run: set dp.budget: run or "
                "published");
  }
  return name == "published" ? published_choices(method).budget : parse_epsilon_budget(name);
}

LocalDpOptions read_dp(const YAML::Node& c, FederatedMethod method, double* delta_setting) {
  LocalDpOptions dp;
  dp.enabled = point_value<bool>(c, "dp.enabled");
  dp.epsilon = point_value<double>(c, "dp.epsilon");
  *delta_setting = point_value<double>(c, "dp.delta");
  dp.clip_norm = point_value<double>(c, "dp.clip_norm");
  dp.clip = read_clip(c, method);
  dp.calibration = read_calibration(c, method);
  dp.budget = read_budget(c, method);
  return dp;
}

FedAdamOptions read_fedadam(const YAML::Node& c) {
  FedAdamOptions o;
  o.eta = point_value<double>(c, "server.eta");
  o.tau0 = point_value<double>(c, "server.tau0");
  o.tau1 = point_value<double>(c, "server.tau1");
  o.tau2 = point_value<double>(c, "server.tau2");
  return o;
}

DistillationOptions read_distill(const YAML::Node& c, FederatedMethod method) {
  DistillationOptions d;
  d.every = point_value<std::int64_t>(c, "distill.every");
  if (method != FederatedMethod::privateai) d.every = 0;  // the baselines do not distil
  d.mu = point_value<double>(c, "distill.mu");
  d.align = point_value<bool>(c, "distill.align");
  d.use_teachers = point_value<bool>(c, "distill.teachers");
  d.train = read_train(c, "distill");
  return d;
}

FederatedOptions read_training(const YAML::Node& c, FederatedMethod method, double* delta_setting) {
  FederatedOptions t;
  t.rounds = point_value<std::int64_t>(c, "rounds");
  t.client_fraction = point_value<double>(c, "client_fraction");
  t.local = read_train(c, "local");
  t.dp = read_dp(c, method, delta_setting);
  t.fedadam = read_fedadam(c);
  t.method = method;
  t.distill = read_distill(c, method);
  t.ftrl_eta = point_value<double>(c, "ftrl.eta");
  t.robust_z = point_value<double>(c, "robust.z");
  t.fafl.steps = point_value<std::int64_t>(c, "fafl.steps");
  t.fafl.batch = point_value<std::int64_t>(c, "fafl.batch");
  t.fafl.learning_rate = point_value<double>(c, "fafl.learning_rate");
  t.fafl.momentum = point_value<double>(c, "fafl.momentum");
  t.fafl.rho = point_value<double>(c, "fafl.rho");
  t.fafl.lambda = point_value<double>(c, "fafl.lambda");
  if (method == FederatedMethod::central) {  // one client, every round, no noise: plain training
    t.client_fraction = 1;
    t.dp.enabled = false;
  }
  return t;
}

TeacherSettings read_teachers(const YAML::Node& c) {
  TeacherSettings t;
  t.standin = point_value<std::vector<std::string>>(c, "teachers.standin");
  t.file = point_value<std::string>(c, "teachers.file");
  t.export_prefix = point_value<std::string>(c, "teachers.export");
  require_key(!t.file.empty() || !t.standin.empty(), "teachers.standin",
              "is empty and teachers.file is not set: PrivateAI has no teacher");
  t.central = read_train(c, "teachers.central");
  return t;
}

TextClassifierOptions read_model(const YAML::Node& c, std::int64_t max_tokens) {
  TextClassifierOptions m;
  m.layers = point_value<std::int64_t>(c, "model.layers");
  m.heads = point_value<std::int64_t>(c, "model.heads");
  m.feedforward = point_value<std::int64_t>(c, "model.feedforward");
  m.train_embeddings = point_value<bool>(c, "model.train_embeddings");
  m.max_tokens = max_tokens;
  require_key(100 % m.heads == 0, "model.heads", "must divide the GloVe width 100 (1, 2, 4, 5, 10, 20, 25, 50, 100)");
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
  s.scale = point_value<double>(c, "scale");
  s.data = read_data(c, s.scale);
  s.method = point_choice(c, "method", parse_federated_method);
  read_clients(c, s);
  if (s.method == FederatedMethod::central) s.clients = 1;  // all the members' units in one place
  s.training = read_training(c, s.method, &s.delta_setting);
  s.teachers = read_teachers(c);
  s.model = read_model(c, s.data.max_tokens);
  s.shadows = point_value<std::int64_t>(c, "attack.shadows");
  require_key(s.shadows != 1, "attack.shadows",
              "must be 0 (the loss attack only) or >= 2 (LiRA fits a Gaussian per example), got 1");
  return s;
}

}  // namespace embpriv
