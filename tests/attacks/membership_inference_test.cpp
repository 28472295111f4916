// Membership inference (attacks/membership_inference.h): the ROC summary on hand-made scores,
// and LiRA on confidences drawn from known Gaussians, where the likelihood-ratio test is the
// optimal one: LiRA online reaches the Gaussian AUC Phi(d / sqrt 2) and beats the plain
// threshold at low FPR when examples differ in their own means. Fixed seeds.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

#include "attacks/membership_inference.h"
#include "tests/catch.h"

TEST_CASE("ROC summary on hand-made scores", "[attacks][mia]") {
  // Members 0.9, 0.8, 0.3; non-members 0.7, 0.2, 0.1: 8 of 9 pairs ordered right.
  const at::Tensor scores = at::tensor({0.9, 0.8, 0.3, 0.7, 0.2, 0.1});
  const at::Tensor members = at::tensor({1, 1, 1, 0, 0, 0}).to(at::kBool);
  const embpriv::RocSummary r = embpriv::roc_summary(scores, members);
  CHECK(r.auc == Approx(8.0 / 9.0));
  CHECK(r.tpr_at_1_percent == Approx(2.0 / 3.0));  // before the first non-member
  CHECK(r.balanced_accuracy == Approx((1.0 + 2.0 / 3.0) / 2));
  CHECK(r.fpr.front() == 0);
  CHECK(r.tpr.back() == 1);
  // Ties count half: all scores equal gives AUC 0.5.
  CHECK(embpriv::roc_summary(at::zeros({6}), members).auc == Approx(0.5));
  CHECK_THROWS_WITH(embpriv::roc_summary(scores, at::ones({6}).to(at::kBool)), Catch::Contains("members and non-members"));
}

TEST_CASE("LiRA on Gaussian confidences: the optimal test, better than a global threshold", "[attacks][mia]") {
  at::Generator g = at::detail::createCPUGenerator(17);
  const std::int64_t N = 4000, S = 32;
  // Each example has its own difficulty (mean of phi when out); being in adds 1.5.
  const at::Tensor base = 3 * at::randn({N}, g, at::kDouble);
  const at::Tensor shadow_in = at::rand({S, N}, g, at::kDouble) < 0.5;
  const at::Tensor shadow_phi = base + 1.5 * shadow_in.to(at::kDouble) + 0.5 * at::randn({S, N}, g, at::kDouble);
  const at::Tensor members = at::rand({N}, g, at::kDouble) < 0.5;
  const at::Tensor target_phi = base + 1.5 * members.to(at::kDouble) + 0.5 * at::randn({N}, g, at::kDouble);
  const embpriv::MembershipAttackScores attacks = embpriv::membership_scores(target_phi, shadow_phi, shadow_in);
  std::map<std::string, embpriv::RocSummary> roc;
  for (const auto& [name, scores] : attacks.scores) roc[name] = embpriv::roc_summary(scores, members);
  // Optimal AUC for N(1.5, 0.5^2) vs N(0, 0.5^2): Phi(3 / sqrt 2) = 0.983.
  CHECK(roc["lira_online"].auc == Approx(0.983).margin(0.01));
  CHECK(roc["lira_offline"].auc > 0.95);
  CHECK(roc["loss"].auc < 0.75);  // the spread of difficulties drowns the global threshold
  CHECK(roc["lira_online"].tpr_at_1_percent > 0.55);  // optimal: Phi(3 - 2.326) = 0.75
  CHECK(roc["lira_online"].tpr_at_1_percent > 5 * roc["loss"].tpr_at_1_percent);
  // A broken LiRA (the in and out fits swapped) falls below chance.
  const embpriv::MembershipAttackScores swapped = embpriv::membership_scores(target_phi, shadow_phi, ~shadow_in);
  CHECK(embpriv::roc_summary(swapped.scores[1].second, members).auc < 0.1);
}

TEST_CASE("LiRA centred on the shadows' median (as Carlini et al.'s released code) or mean", "[attacks][mia]") {
  // 5 shadows, 2 examples. Example 0: in = shadows 0, 1 (phi 1, 3), out = 2, 3, 4 (phi 0, 1, 20:
  // one shadow at the clamp's scale). Example 1: in = shadows 0, 1, 2, 3 (phi 2, 4, 6, 100),
  // out = shadow 4 only (phi -1).
  const at::Tensor shadow_phi = at::tensor({1.0, 2.0, 3.0, 4.0, 0.0, 6.0, 1.0, 100.0, 20.0, -1.0}, at::kDouble).reshape({5, 2});
  const at::Tensor shadow_in = at::tensor({1, 1, 1, 1, 0, 1, 0, 1, 0, 0}).to(at::kBool).reshape({5, 2});
  const at::Tensor median = embpriv::masked_column_median(shadow_phi, shadow_in, -7);
  CHECK(median[0].item<double>() == 2.0);  // (1 + 3) / 2: even count, numpy's convention
  CHECK(median[1].item<double>() == 5.0);  // (4 + 6) / 2
  const at::Tensor out_median = embpriv::masked_column_median(shadow_phi, ~shadow_in, -7);
  CHECK(out_median[0].item<double>() == 1.0);   // median of {0, 1, 20}
  CHECK(out_median[1].item<double>() == -1.0);  // one value
  CHECK(embpriv::masked_column_median(shadow_phi, at::zeros({5, 2}, at::kBool), -7)[0].item<double>() == -7.0);

  // The offline score (phi - centre_out) / s_out; s_out^2 about the mean: {0, 1, 20} has mean 7,
  // variance ((49 + 36 + 169) / 2) = 127.
  const at::Tensor target_phi = at::tensor({5.0, 0.0}, at::kDouble);
  const auto offline = [&](embpriv::LiraCenter c) {
    for (const auto& [name, scores] : embpriv::membership_scores(target_phi, shadow_phi, shadow_in, c).scores) {
      if (name == "lira_offline") return scores[0].item<double>();
    }
    return std::nan("");
  };
  CHECK(offline(embpriv::LiraCenter::mean) == Approx((5.0 - 7.0) / std::sqrt(127.0)));
  CHECK(offline(embpriv::LiraCenter::median) == Approx((5.0 - 1.0) / std::sqrt(127.0)));
}
