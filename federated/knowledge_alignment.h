#pragma once
// The server's use of the teachers' answers on the proxy set P (PrivateAI paper, sec. 2.3):
//   eq. (6): f_bar_j = (1/H) sum_k f_j^k, the teachers' mean answer on unit j;
//   alignment: f_j = f_bar_j / 2 + f_hat_j / 2, with f_hat_j the aggregated model's answer;
//   filter: P_n = {(x_j, f_j) : f_j > mu}.
// Scores are P(private). Read literally on that score, the filter would keep only units the
// fused answer calls private and teach the model to flag everything; embpriv reads f_j > mu as
// "the fused answer is confident": max(f_j, 1 - f_j) > mu, i.e. both sources lean the same way
// strongly enough (mu in [0.5, 1); the paper uses 0.9). Kept units are trained on with the soft
// target f_j. docs/privateai.md states this reading.
#include <ATen/core/Tensor.h>

namespace embpriv {

at::Tensor average_teacher_answers(const at::Tensor& scores);  // [H, E] -> [E], eq. (6)

struct DistillationTargets {
  at::Tensor units;    // [M] int64: indices into the proxy set
  at::Tensor targets;  // [M] double in [0, 1]
};

// Aligned and filtered: f = (f_bar + f_hat) / 2, kept where max(f, 1 - f) > mu.
DistillationTargets aligned_knowledge(const at::Tensor& teacher_mean, const at::Tensor& server_answers, double mu);
// The "without alignment" ablation: every unit, the teachers' mean answer as it is.
DistillationTargets unaligned_knowledge(const at::Tensor& teacher_mean);

}  // namespace embpriv
