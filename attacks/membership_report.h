#pragma once
// A membership-inference result as a results row reports it (experiment types mia and
// federated): for each attack A the columns auc_A, balanced_accuracy_A, tpr_at_0.1%fpr_A and
// tpr_at_1%fpr_A, NaN for an attack that could not run (LiRA with fewer than two shadows), and
// the ROC of each attack that ran. One place for the attack names, their columns and the loop
// that fills them.
#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "attacks/membership_inference.h"

namespace embpriv {

// The loss attack and LiRA's four variants, in column order (membership_scores' names).
const std::vector<std::string>& loss_and_lira_attack_names();

// The four columns of each attack, attack by attack.
std::vector<std::string> membership_columns(const std::vector<std::string>& attacks);

// The loss attack's scores, and LiRA's (membership_scores) where there are >= 2 shadows.
// target_phi [N]; shadow_phi [S, N]; shadow_in [S, N] bool.
std::vector<std::pair<std::string, at::Tensor>> loss_and_lira_scores(const at::Tensor& target_phi,
                                                                     const at::Tensor& shadow_phi,
                                                                     const at::Tensor& shadow_in,
                                                                     LiraCenter center = LiraCenter::mean);

struct AttackOutcome {
  std::string attack;
  bool ran = false;
  RocSummary roc;  // when ran
};

struct MembershipReport {
  std::vector<std::pair<std::string, double>> numbers;  // membership_columns(attacks), in order
  std::vector<AttackOutcome> outcomes;                  // one per attack, in order
};

// Every attack of `attacks` scored against the truth `members` [N] bool: an attack missing from
// `scores` did not run (its numbers NaN).
MembershipReport membership_report(const std::vector<std::string>& attacks,
                                   const std::vector<std::pair<std::string, at::Tensor>>& scores,
                                   const at::Tensor& members);

}  // namespace embpriv
