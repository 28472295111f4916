#include "experiments/types/mia/mia_models.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <string>
#include <vector>

#include "attacks/membership_inference.h"
#include "core/rng.h"
#include "mechanisms/mechanism.h"
#include "models/logistic_regression.h"

namespace embpriv {
namespace {

// Mean-pooled sentence features of every candidate, with token rows perturbed (or clean).
at::Tensor sentence_features(const PrivateText& text, const Mechanism* mechanism, std::uint64_t seed) {
  const at::Tensor rows = text.table.index_select(0, at::tensor(text.flat, at::kLong));
  const at::Tensor used = mechanism ? mechanism->perturb(rows, RandomStream{seed, 0}) : rows;
  return mean_pooled(text, used).features;
}

}  // namespace

std::uint64_t models_point_id(const GridPoint& point) {
  // The same canonical form as the sweep grid's key (experiments/engine/sweep_grid.cpp).
  std::vector<std::string> parts;
  for (const Assignment& a : point.assignment) {
    if (a.path.rfind("attack.", 0) != 0) parts.push_back(a.path + "=" + flow_yaml(a.value));
  }
  if (parts.size() == point.assignment.size()) return point.point_id;
  std::sort(parts.begin(), parts.end());
  std::string key;
  for (const std::string& part : parts) key += (key.empty() ? "" : "; ") + part;
  return fnv1a64(key);
}

MiaClassifier train_mia_classifier(const MiaCandidates& data, const Mechanism* used, double l2, std::uint64_t run_seed,
                                   std::uint64_t models_id, std::int64_t index, c10::Device device) {
  const auto seed = [&](const std::string& purpose) {
    return derive_seed(run_seed, models_id, purpose + "." + std::to_string(index));
  };
  const bool target = index == 0;
  const at::Tensor& clean = data.clean.features;
  const at::Tensor& labels = data.clean.labels;
  MiaClassifier c;
  c.in = random_members(clean.size(0), seed(target ? "mia.members" : "mia.shadow_members"));
  const at::Tensor noisy = sentence_features(data.text, used, seed(target ? "mia.target_noise" : "mia.shadow_noise"));
  const at::Tensor inside = c.in.nonzero().squeeze(1), outside = (~c.in).nonzero().squeeze(1);
  const LogisticRegression model =
      LogisticRegression::fit(noisy.index_select(0, inside), labels.index_select(0, inside), l2, 50, device);
  c.phi = logit_confidence(model.probabilities(clean), labels);
  c.population_phi = logit_confidence(model.probabilities(data.population.features), data.population.labels);
  c.train_accuracy = model.accuracy(clean.index_select(0, inside), labels.index_select(0, inside));
  c.test_accuracy = model.accuracy(clean.index_select(0, outside), labels.index_select(0, outside));
  return c;
}

}  // namespace embpriv
