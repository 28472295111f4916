#include "experiments/types/federated/federated_settings.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "experiments/engine/experiment_type.h"

namespace embpriv {
namespace {

TrainOptions read_train(const YAML::Node& c, const std::string& prefix) {
  TrainOptions t;
  t.epochs = point_value<std::int64_t>(c, prefix + ".epochs", "an integer");
  t.batch = point_value<std::int64_t>(c, prefix + ".batch", "an integer");
  t.learning_rate = point_value<double>(c, prefix + ".learning_rate", "a number");
  require_key(t.epochs >= 1, prefix + ".epochs", "must be >= 1");
  require_key(t.batch >= 1, prefix + ".batch", "must be >= 1");
  require_key(t.learning_rate > 0 && std::isfinite(t.learning_rate), prefix + ".learning_rate", "must be > 0");
  return t;
}

std::int64_t scaled_units(const YAML::Node& c, const std::string& key, double scale) {
  const auto n = point_value<std::int64_t>(c, key, "an integer");
  require_key(n >= 1, key, "must be >= 1");
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(n) * scale));
}

}  // namespace

FederatedSettings read_federated_settings(const YAML::Node& c) {
  FederatedSettings s;
  s.scale = point_value<double>(c, "scale", "a number");
  require_key(s.scale > 0 && std::isfinite(s.scale), "scale", "must be > 0");
  s.data.glove = point_value<std::string>(c, "data.glove", "a file name");
  s.data.corpus = point_value<std::string>(c, "data.corpus", "a folder name");
  const auto proxy_domain = point_value<std::string>(c, "data.proxy_domain", "emails or reviews");
  require_key(proxy_domain == "emails" || proxy_domain == "reviews", "data.proxy_domain",
              "must be emails or reviews, got '" + proxy_domain + "'");
  if (proxy_domain == "reviews") {
    s.data.proxy_reviews = point_value<std::vector<std::string>>(c, "data.reviews", "a list of file names");
    require_key(!s.data.proxy_reviews.empty(), "data.reviews", "must name at least one file of review sentences");
  }
  s.data.candidate_units = scaled_units(c, "data.candidate_units", s.scale);
  s.data.proxy_units = scaled_units(c, "data.proxy_units", s.scale);
  s.data.public_units = scaled_units(c, "data.public_units", s.scale);
  s.data.test_units = scaled_units(c, "data.test_units", s.scale);
  require_key(s.data.candidate_units >= 4, "data.candidate_units", "must be >= 4 (members are a random half)");
  s.data.private_share = point_value<double>(c, "data.private_share", "a number");
  require_key(s.data.private_share > 0 && s.data.private_share < 1, "data.private_share", "must be in (0, 1)");
  s.data.max_tokens = point_value<std::int64_t>(c, "data.max_tokens", "an integer");
  require_key(s.data.max_tokens >= 1 && s.data.max_tokens <= 512, "data.max_tokens", "must be in [1, 512]");

  s.method_name = point_value<std::string>(c, "method", "privateai, fedavg or fedadam");
  if (s.method_name == "privateai") {
    s.method = FederatedMethod::privateai;
  } else if (s.method_name == "fedavg") {
    s.method = FederatedMethod::fedavg;
  } else if (s.method_name == "fedadam") {
    s.method = FederatedMethod::fedadam;
  } else {
    throw ConfigError("method", "method must be privateai, fedavg or fedadam, got " + s.method_name);
  }
  s.clients = point_value<std::int64_t>(c, "clients", "an integer");
  require_key(s.clients >= 1, "clients", "must be >= 1");
  const auto per_client = point_value<std::int64_t>(c, "data.units_per_client", "an integer");
  require_key(per_client >= 0, "data.units_per_client", "must be >= 0 (0: data.candidate_units sets |S|)");
  if (per_client > 0) {  // |S| = K * units_per_client: the candidates are twice that
    s.data.candidate_units = std::max<std::int64_t>(4, std::llround(2.0 * static_cast<double>(s.clients * per_client) * s.scale));
  }
  require_key(s.clients >= 1 && s.clients <= s.data.candidate_units / 2, "clients",
              "must be in [1, the members (" + std::to_string(s.data.candidate_units / 2) + ")]");
  s.alpha = point_value<double>(c, "alpha", "a number");
  require_key(s.alpha > 0 && std::isfinite(s.alpha), "alpha", "must be > 0 (Dirichlet concentration)");

  FederatedOptions& t = s.training;
  t.rounds = point_value<std::int64_t>(c, "rounds", "an integer");
  require_key(t.rounds >= 1, "rounds", "must be >= 1");
  t.client_fraction = point_value<double>(c, "client_fraction", "a number");
  require_key(t.client_fraction > 0 && t.client_fraction <= 1, "client_fraction", "must be in (0, 1]");
  t.local = read_train(c, "local");

  t.dp.enabled = point_value<bool>(c, "dp.enabled", "true or false");
  t.dp.epsilon = point_value<double>(c, "dp.epsilon", "a number");
  require_key(t.dp.epsilon > 0 && std::isfinite(t.dp.epsilon), "dp.epsilon", "must be > 0");
  s.delta_setting = point_value<double>(c, "dp.delta", "a number");
  require_key(s.delta_setting >= 0 && s.delta_setting < 1, "dp.delta", "must be in [0, 1) (0: 1/|S|)");
  t.dp.clip_norm = point_value<double>(c, "dp.clip_norm", "a number");
  require_key(t.dp.clip_norm > 0 && std::isfinite(t.dp.clip_norm), "dp.clip_norm", "must be > 0 (theta)");
  t.dp.clip = point_choice(c, "dp.clip", "parameters or update", parse_clip_target);
  t.dp.calibration = point_choice(c, "dp.calibration", "classic or analytic", parse_gaussian_calibration);

  t.fedadam.eta = point_value<double>(c, "server.eta", "a number");
  t.fedadam.tau0 = point_value<double>(c, "server.tau0", "a number");
  t.fedadam.tau1 = point_value<double>(c, "server.tau1", "a number");
  t.fedadam.tau2 = point_value<double>(c, "server.tau2", "a number");
  require_key(t.fedadam.eta > 0, "server.eta", "must be > 0");
  require_key(t.fedadam.tau0 > 0, "server.tau0", "must be > 0");
  require_key(t.fedadam.tau1 >= 0 && t.fedadam.tau1 < 1, "server.tau1", "must be in [0, 1)");
  require_key(t.fedadam.tau2 >= 0 && t.fedadam.tau2 < 1, "server.tau2", "must be in [0, 1)");
  t.aggregator = s.method == FederatedMethod::fedavg ? Aggregator::fedavg : Aggregator::fedadam;

  t.distill.every = point_value<std::int64_t>(c, "distill.every", "an integer");
  require_key(t.distill.every >= 0, "distill.every", "must be >= 0 (I_kd; 0: never)");
  if (s.method != FederatedMethod::privateai) t.distill.every = 0;  // the baselines do not distil
  t.distill.mu = point_value<double>(c, "distill.mu", "a number");
  require_key(t.distill.mu >= 0.5 && t.distill.mu < 1, "distill.mu", "must be in [0.5, 1)");
  t.distill.align = point_value<bool>(c, "distill.align", "true or false");
  t.distill.use_teachers = point_value<bool>(c, "distill.teachers", "true or false");
  t.distill.train = read_train(c, "distill");

  s.teachers.standin = point_value<std::vector<std::string>>(c, "teachers.standin", "a list of names");
  const std::vector<std::string>& known = standin_teacher_names();
  std::string valid;
  for (const std::string& k : known) valid += (valid.empty() ? "" : ", ") + k;
  for (const std::string& name : s.teachers.standin) {
    require_key(std::find(known.begin(), known.end(), name) != known.end(), "teachers.standin",
                "holds unknown teacher '" + name + "'; valid: " + valid);
  }
  s.teachers.file = point_value<std::string>(c, "teachers.file", "a file name");
  s.teachers.export_prefix = point_value<std::string>(c, "teachers.export", "a path prefix");
  require_key(!s.teachers.file.empty() || !s.teachers.standin.empty(), "teachers.standin",
              "is empty and teachers.file is not set: PrivateAI has no teacher");
  s.teachers.central = read_train(c, "teachers.central");

  s.model.layers = point_value<std::int64_t>(c, "model.layers", "an integer");
  s.model.heads = point_value<std::int64_t>(c, "model.heads", "an integer");
  s.model.feedforward = point_value<std::int64_t>(c, "model.feedforward", "an integer");
  s.model.train_embeddings = point_value<bool>(c, "model.train_embeddings", "true or false");
  s.model.max_tokens = s.data.max_tokens;
  require_key(s.model.layers >= 1, "model.layers", "must be >= 1");
  require_key(s.model.heads >= 1 && 100 % s.model.heads == 0, "model.heads",
              "must divide the GloVe width 100 (1, 2, 4, 5, 10, 20, 25, 50, 100)");
  require_key(s.model.feedforward >= 1, "model.feedforward", "must be >= 1");

  s.shadows = point_value<std::int64_t>(c, "attack.shadows", "an integer");
  require_key(s.shadows == 0 || s.shadows >= 2, "attack.shadows",
              "must be 0 (the loss attack only) or >= 2 (LiRA fits a Gaussian per example), got " +
                  std::to_string(s.shadows));
  return s;
}

}  // namespace embpriv
