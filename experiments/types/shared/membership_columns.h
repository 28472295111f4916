#pragma once
// The columns membership inference adds to a results table (experiment types mia and federated):
// for each attack A of attacks/membership_inference.h, auc_A, balanced_accuracy_A,
// tpr_at_0.1%fpr_A and tpr_at_1%fpr_A.
#include <string>
#include <utility>
#include <vector>

#include "attacks/membership_inference.h"

namespace embpriv {

// Every attack membership_scores reports, in its order.
const std::vector<std::string>& membership_attack_names();

// The column names, attack by attack.
std::vector<std::string> membership_columns();

// One attack's four numbers from its ROC; roc null: NaN (an attack that did not run).
std::vector<std::pair<std::string, double>> membership_numbers(const std::string& attack, const RocSummary* roc);

}  // namespace embpriv
