#include "experiments/types/shared/membership_columns.h"

#include <cmath>

namespace embpriv {

const std::vector<std::string>& membership_attack_names() {
  static const std::vector<std::string> names = {"loss", "lira_online", "lira_offline", "lira_online_fixed",
                                                 "lira_offline_fixed"};
  return names;
}

std::vector<std::string> membership_columns() {
  std::vector<std::string> columns;
  for (const std::string& attack : membership_attack_names()) {
    for (const auto& [name, value] : membership_numbers(attack, nullptr)) columns.push_back(name);
  }
  return columns;
}

std::vector<std::pair<std::string, double>> membership_numbers(const std::string& attack, const RocSummary* roc) {
  return {{"auc_" + attack, roc ? roc->auc : NAN},
          {"balanced_accuracy_" + attack, roc ? roc->balanced_accuracy : NAN},
          {"tpr_at_0.1%fpr_" + attack, roc ? roc->tpr_at_0_1_percent : NAN},
          {"tpr_at_1%fpr_" + attack, roc ? roc->tpr_at_1_percent : NAN}};
}

}  // namespace embpriv
