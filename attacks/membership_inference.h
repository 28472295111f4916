#pragma once
// Membership inference against a classifier, from its confidence on each candidate example:
//   phi = log(p_y / (1 - p_y)), the logit-scaled probability of the true label (Carlini et al.
//   2022, "Membership inference attacks from first principles", sec. IV).
// Attacks (higher score: more likely a member):
//   loss threshold (Yeom et al. 2018): log p_y of the target;
//   LiRA online: log N(phi; mu_in, s_in^2) - log N(phi; mu_out, s_out^2), the Gaussians fitted
//     per example to shadow models trained with (in) and without (out) it;
//   LiRA offline: (phi - mu_out) / s_out, from the "out" shadows only (one-sided test);
//   each LiRA also with a fixed variance (one s_in, s_out over all examples), as the paper
//   advises for few shadow models.
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace embpriv {

// A random half of n candidate examples, the members of a target or shadow model's training
// set: exactly n / 2 of them, from Rng(seed, 0). [n] bool.
at::Tensor random_members(std::int64_t n, std::uint64_t seed);

// phi from probabilities of class 1 [N] and labels [N] (0/1), the probabilities clamped to
// [1e-12, 1 - 1e-12]: phi lies in [-27.6, 27.6], and every example the model is surer of than
// 1 - 1e-12 gets the same phi (a tie; docs/attacks.md).
at::Tensor logit_confidence(const at::Tensor& probability_of_one, const at::Tensor& labels);

// The loss-threshold attack's score (Yeom et al. 2018): log p_y = log sigmoid(phi), higher for
// a lower loss. Needs no shadow model.
at::Tensor loss_attack_scores(const at::Tensor& target_phi);

struct MembershipAttackScores {
  std::vector<std::pair<std::string, at::Tensor>> scores;  // name -> [N] double
};

// Where LiRA centres each example's Gaussian: the mean of its shadows' phi (the paper's
// mu_in, mu_out, sec. IV-C), or their median, as Carlini et al.'s released code does
// (np.median over the shadows; robust to a few shadows whose phi hit the clamp). The variance
// is the sample variance about the mean either way.
enum class LiraCenter { mean, median };

// target_phi [N]; shadow_phi [S, N]; shadow_in [S, N] bool (example n in shadow s's training set).
// Examples without an "in" (or "out") shadow fall back to the fixed-variance, global-mean fit.
MembershipAttackScores membership_scores(const at::Tensor& target_phi, const at::Tensor& shadow_phi,
                                         const at::Tensor& shadow_in, LiraCenter center = LiraCenter::mean);

// The median over the rows of values [S, N] where mask [S, N] is true, per column (the mean of
// the two middle values for an even count, as numpy's median); `fallback` for an empty column.
at::Tensor masked_column_median(const at::Tensor& values, const at::Tensor& mask, double fallback);

struct RocSummary {
  double auc = 0;                 // area under the ROC curve (ties count half)
  double balanced_accuracy = 0;   // max over thresholds of (TPR + TNR) / 2
  double tpr_at_0_1_percent = 0;  // largest TPR with FPR <= 0.001
  double tpr_at_1_percent = 0;    // largest TPR with FPR <= 0.01
  std::vector<double> fpr, tpr;   // the curve, one point per distinct score (from (0,0) to (1,1))
};

// scores [N] (higher: member), members [N] bool; needs at least one member and one non-member.
RocSummary roc_summary(const at::Tensor& scores, const at::Tensor& members);

}  // namespace embpriv
