#include "attacks/membership_report.h"

#include <algorithm>
#include <cmath>

namespace embpriv {
namespace {

std::vector<std::pair<std::string, double>> attack_numbers(const std::string& attack, const RocSummary* roc) {
  return {{"auc_" + attack, roc ? roc->auc : NAN},
          {"balanced_accuracy_" + attack, roc ? roc->balanced_accuracy : NAN},
          {"tpr_at_0.1%fpr_" + attack, roc ? roc->tpr_at_0_1_percent : NAN},
          {"tpr_at_1%fpr_" + attack, roc ? roc->tpr_at_1_percent : NAN}};
}

}  // namespace

const std::vector<std::string>& loss_and_lira_attack_names() {
  static const std::vector<std::string> names = {"loss", "lira_online", "lira_offline", "lira_online_fixed",
                                                 "lira_offline_fixed"};
  return names;
}

std::vector<std::string> membership_columns(const std::vector<std::string>& attacks) {
  std::vector<std::string> columns;
  for (const std::string& attack : attacks) {
    for (const auto& [name, value] : attack_numbers(attack, nullptr)) columns.push_back(name);
  }
  return columns;
}

std::vector<std::pair<std::string, at::Tensor>> loss_and_lira_scores(const at::Tensor& target_phi,
                                                                     const at::Tensor& shadow_phi,
                                                                     const at::Tensor& shadow_in, LiraCenter center) {
  if (shadow_phi.defined() && shadow_phi.dim() == 2 && shadow_phi.size(0) >= 2) {
    return membership_scores(target_phi, shadow_phi, shadow_in, center).scores;
  }
  return {{"loss", loss_attack_scores(target_phi)}};  // LiRA fits a Gaussian per example: >= 2 shadows
}

MembershipReport membership_report(const std::vector<std::string>& attacks,
                                   const std::vector<std::pair<std::string, at::Tensor>>& scores,
                                   const at::Tensor& members) {
  MembershipReport report;
  for (const std::string& attack : attacks) {
    const auto found = std::find_if(scores.begin(), scores.end(), [&](const auto& s) { return s.first == attack; });
    AttackOutcome outcome;
    outcome.attack = attack;
    outcome.ran = found != scores.end();
    if (outcome.ran) outcome.roc = roc_summary(found->second, members);
    for (auto& number : attack_numbers(attack, outcome.ran ? &outcome.roc : nullptr)) {
      report.numbers.push_back(std::move(number));
    }
    report.outcomes.push_back(std::move(outcome));
  }
  return report;
}

}  // namespace embpriv
