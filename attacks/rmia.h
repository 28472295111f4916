#pragma once
// RMIA, the relative membership inference attack (Zarifzadeh, Liu, Mohapatra & Shokri, "Low-Cost
// High-Power Membership Inference Attacks", ICML 2024). A candidate x is compared with
// population samples z, none of which any model trained on:
//   LR(x, z) = [Pr(x|theta) / Pr(x)] / [Pr(z|theta) / Pr(z)]     (the paper's LR_theta(x, z))
//   score(x) = Pr_z[ LR(x, z) >= gamma ]                         (its Score_MIA(x; theta))
// Pr(.|theta) is the target model's probability of the true label; Pr(.) its mean over the
// reference (shadow) models:
//   online:  the mean over every reference model, those trained with x and those without;
//   offline: only models without x, corrected by the paper's linear approximation (its
//            offline attack): Pr(x) = ((1 + a) Pr_OUT(x) + (1 - a)) / 2, for x and for z alike, as in
//            the authors' ML Privacy Meter (attacks.py, run_rmia).
#include <ATen/core/Tensor.h>

namespace embpriv {

struct RmiaParameters {
  // The paper's gamma (Score_MIA): how much likelier x must be than z under theta, relative to the
  // population. 1 is the value of the paper's main experiments.
  double gamma = 1.0;
  // The paper's a (offline linear approximation), in [0, 1]; 0.3 is the ML Privacy Meter's default
  // (modules/mia/attacks/rmia.py). a = 1 means Pr(x) = Pr_OUT(x).
  double offline_a = 0.3;
  // Score_MIA takes only P + 1 values (P population samples), so candidates tie, most at the top
  // (every z dominated) where the low-FPR end of the ROC is read. For one target and one shared
  // population the count #{z : ratio_x / ratio_z >= gamma} is a non-decreasing step function of
  // ratio_x = Pr(x|theta) / Pr(x) (ratio_z does not depend on x), so ties are broken by ratio_x
  // itself: score = (count + ratio_x / (1 + ratio_x)) / P. The added term lies in [0, 1), so no
  // candidate crosses into another count; the order is then that of ratio_x, the order Score_MIA
  // tends to as P grows (where the population's ratios are dense). false: the plain fraction.
  bool break_ties = true;
};

struct RmiaScores {
  // [N] double, in [0, 1]: the fraction of z that x dominates (+ the tie-break, < 1 / P).
  at::Tensor online, offline;
};

// target_probability [N]: Pr(x|theta) of the candidates; reference_probability [S, N] and
// reference_in [S, N] (bool: candidate n in reference model s's training set); population_target
// [P] and population_reference [S, P]: Pr(z|theta) and Pr(z|theta_s) of the population samples,
// which are in no model's training set. Probabilities lie in (0, 1].
// A candidate without an "out" reference model (possible with few models) takes, offline, the
// mean over every (model, candidate) pair that is "out".
RmiaScores rmia_scores(const at::Tensor& target_probability, const at::Tensor& reference_probability,
                       const at::Tensor& reference_in, const at::Tensor& population_target,
                       const at::Tensor& population_reference, const RmiaParameters& parameters);

// Score_MIA alone: for each x, the fraction of z with ratio_x / ratio_z >= gamma. ratio_x [N] and
// ratio_z [P] are Pr(.|theta) / Pr(.), positive. break_ties: add ratio_x / (1 + ratio_x) to the
// count before dividing by P (RmiaParameters::break_ties).
at::Tensor rmia_dominance(const at::Tensor& ratio_x, const at::Tensor& ratio_z, double gamma, bool break_ties = false);

}  // namespace embpriv
