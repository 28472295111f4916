#include "attacks/membership_inference.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"

namespace embpriv {

at::Tensor random_members(std::int64_t n, std::uint64_t seed) {
  EMBPRIV_CHECK(n >= 2, "mia: at least 2 candidates are needed, got " << n);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed, 0);
  shuffle(order, rng);
  at::Tensor in = at::zeros({n}, at::kBool);
  for (std::int64_t i = 0; i < n / 2; ++i) in[order[static_cast<std::size_t>(i)]] = true;
  return in;
}

at::Tensor logit_confidence(const at::Tensor& probability_of_one, const at::Tensor& labels) {
  EMBPRIV_CHECK(probability_of_one.numel() == labels.numel(), "mia: one probability per label");
  const at::Tensor p1 = probability_of_one.to(at::kDouble).reshape({-1}).clamp(1e-12, 1 - 1e-12);
  const at::Tensor y = labels.to(at::kDouble).reshape({-1});
  const at::Tensor p_true = y * p1 + (1 - y) * (1 - p1);
  return at::log(p_true) - at::log1p(-p_true);
}

at::Tensor loss_attack_scores(const at::Tensor& target_phi) {
  const at::Tensor phi = target_phi.to(at::kDouble).reshape({-1});
  return -at::log1p(at::exp(-phi));
}

at::Tensor masked_column_median(const at::Tensor& values, const at::Tensor& mask, double fallback) {
  EMBPRIV_CHECK(values.dim() == 2 && mask.sizes() == values.sizes(), "mia: values and mask must be [S, N] alike");
  const at::Tensor v = values.to(at::kDouble).t().contiguous();  // [N, S]: one example's shadows in a row
  const at::Tensor m = mask.to(at::kBool).t().contiguous();
  const std::int64_t N = v.size(0), S = v.size(1);
  at::Tensor out = at::empty({N}, at::kDouble);
  const double* vp = v.data_ptr<double>();
  const bool* mp = m.data_ptr<bool>();
  double* op = out.data_ptr<double>();
  std::vector<double> column;
  for (std::int64_t i = 0; i < N; ++i) {
    column.clear();
    for (std::int64_t k = 0; k < S; ++k) {
      if (mp[i * S + k]) column.push_back(vp[i * S + k]);
    }
    if (column.empty()) {
      op[i] = fallback;
      continue;
    }
    std::sort(column.begin(), column.end());
    const std::size_t h = column.size() / 2;
    op[i] = column.size() % 2 == 1 ? column[h] : 0.5 * (column[h - 1] + column[h]);
  }
  return out;
}

MembershipAttackScores membership_scores(const at::Tensor& target_phi, const at::Tensor& shadow_phi,
                                         const at::Tensor& shadow_in, LiraCenter center) {
  const std::int64_t N = target_phi.numel();
  EMBPRIV_CHECK(shadow_phi.dim() == 2 && shadow_phi.size(1) == N && shadow_in.sizes() == shadow_phi.sizes(),
                "mia: shadow confidences and memberships must be [S, " << N << "]");
  EMBPRIV_CHECK(shadow_phi.size(0) >= 2, "mia: LiRA needs at least 2 shadow models");
  const at::Tensor phi = target_phi.to(at::kDouble).reshape({-1});
  const at::Tensor s = shadow_phi.to(at::kDouble);
  const at::Tensor in = shadow_in.to(at::kDouble), out = 1 - in;
  const at::Tensor n_in = in.sum(0), n_out = out.sum(0);
  // Per-example means (or medians) and variances of the in and out shadows (0 counts: the
  // global values); the variance is about the mean whatever the centre.
  const auto fit = [&](const at::Tensor& mask, const at::Tensor& n) {
    const double global_mean = ((s * mask).sum() / mask.sum().clamp_min(1)).item<double>();
    const at::Tensor mean = at::where(n > 0, (s * mask).sum(0) / n.clamp_min(1), at::full_like(n, global_mean));
    const at::Tensor squares = ((s - mean).pow(2) * mask).sum(0);
    const double global_var = (squares.sum() / (n - 1).clamp_min(0).sum().clamp_min(1)).item<double>();
    const at::Tensor var = at::where(n > 1, squares / (n - 1).clamp_min(1), at::full_like(n, global_var));
    const at::Tensor centre = center == LiraCenter::mean ? mean : masked_column_median(s, mask > 0, global_mean);
    return std::make_tuple(centre, var.clamp_min(1e-12), std::max(global_var, 1e-12));
  };
  const auto [center_in, var_in, global_in] = fit(in, n_in);
  const auto [center_out, var_out, global_out] = fit(out, n_out);
  const auto log_normal = [](const at::Tensor& x, const at::Tensor& mean, const at::Tensor& var) {
    return -0.5 * at::log(2 * M_PI * var) - (x - mean).pow(2) / (2 * var);
  };
  const at::Tensor fixed_in = at::full_like(var_in, global_in), fixed_out = at::full_like(var_out, global_out);
  MembershipAttackScores r;
  r.scores.emplace_back("loss", loss_attack_scores(phi));
  r.scores.emplace_back("lira_online", log_normal(phi, center_in, var_in) - log_normal(phi, center_out, var_out));
  r.scores.emplace_back("lira_offline", (phi - center_out) / var_out.sqrt());
  r.scores.emplace_back("lira_online_fixed", log_normal(phi, center_in, fixed_in) - log_normal(phi, center_out, fixed_out));
  r.scores.emplace_back("lira_offline_fixed", (phi - center_out) / std::sqrt(global_out));
  return r;
}

RocSummary roc_summary(const at::Tensor& scores, const at::Tensor& members) {
  const at::Tensor s = scores.to(at::kDouble).reshape({-1}).contiguous();
  const at::Tensor m = members.to(at::kBool).reshape({-1}).contiguous();
  EMBPRIV_CHECK(s.numel() == m.numel(), "mia: one score per example");
  EMBPRIV_CHECK(at::isfinite(s).all().item<bool>(), "mia: the scores hold NaN or Inf");
  const std::int64_t N = s.numel();
  const std::int64_t positives = m.sum().item<std::int64_t>(), negatives = N - positives;
  EMBPRIV_CHECK(positives > 0 && negatives > 0, "mia: the ROC needs members and non-members");
  std::vector<std::int64_t> order(static_cast<std::size_t>(N));
  std::iota(order.begin(), order.end(), 0);
  const double* sp = s.data_ptr<double>();
  const bool* mp = m.data_ptr<bool>();
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return sp[a] > sp[b]; });
  RocSummary r;
  r.fpr.push_back(0);
  r.tpr.push_back(0);
  std::int64_t tp = 0, fp = 0;
  for (std::size_t i = 0; i < order.size();) {
    // One point per distinct score: ties move together (the curve's diagonal step, AUC half).
    std::size_t j = i;
    while (j < order.size() && sp[order[j]] == sp[order[i]]) {
      (mp[order[j]] ? tp : fp) += 1;
      ++j;
    }
    const double fpr = static_cast<double>(fp) / static_cast<double>(negatives);
    const double tpr = static_cast<double>(tp) / static_cast<double>(positives);
    r.auc += (fpr - r.fpr.back()) * (tpr + r.tpr.back()) / 2;
    r.fpr.push_back(fpr);
    r.tpr.push_back(tpr);
    r.balanced_accuracy = std::max(r.balanced_accuracy, (tpr + 1 - fpr) / 2);
    if (fpr <= 0.001) r.tpr_at_0_1_percent = tpr;
    if (fpr <= 0.01) r.tpr_at_1_percent = tpr;
    i = j;
  }
  return r;
}

}  // namespace embpriv
