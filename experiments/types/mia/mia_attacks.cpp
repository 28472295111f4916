#include "experiments/types/mia/mia_attacks.h"

#include <ATen/ATen.h>

#include "attacks/membership_report.h"

namespace embpriv {

const std::vector<std::string>& mia_attack_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = loss_and_lira_attack_names();
    n.emplace_back("rmia_online");
    n.emplace_back("rmia_offline");
    return n;
  }();
  return names;
}

std::vector<std::pair<std::string, at::Tensor>> mia_attack_scores(const MiaConfidences& c, LiraCenter center,
                                                                  const RmiaParameters& rmia) {
  std::vector<std::pair<std::string, at::Tensor>> scores =
      loss_and_lira_scores(c.target_phi, c.shadow_phi, c.shadow_in, center);
  // RMIA reads Pr(x|theta), the probability of the true label: sigmoid(phi) undoes
  // phi = log(p / (1 - p)) (the clamp of logit_confidence keeps it in (0, 1)).
  const RmiaScores r = rmia_scores(at::sigmoid(c.target_phi), at::sigmoid(c.shadow_phi), c.shadow_in,
                                   at::sigmoid(c.population_target_phi), at::sigmoid(c.population_shadow_phi), rmia);
  scores.emplace_back("rmia_online", r.online);
  scores.emplace_back("rmia_offline", r.offline);
  return scores;
}

}  // namespace embpriv
