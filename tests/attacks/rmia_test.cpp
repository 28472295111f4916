// RMIA (attacks/rmia.h): a hand-made case against tests/attacks/rmia_reference.py (numpy, the
// paper's LR_theta(x, z) and Score_MIA, plain and with ties broken), a statistical check on model
// probabilities drawn with and without a membership signal, and the ties at the low-FPR end.
// Fixed seeds.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <vector>

#include "attacks/membership_inference.h"
#include "attacks/rmia.h"
#include "tests/catch.h"

using namespace embpriv;

namespace {

std::vector<double> to_vector(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

}  // namespace

TEST_CASE("RMIA on a hand-made case, against rmia_reference.py", "[attacks][mia][rmia]") {
  // The inputs of tests/attacks/rmia_reference.py. Candidate 0 is in both reference models: its
  // offline Pr_OUT is the mean over every "out" pair.
  const at::Tensor px = at::tensor({0.9, 0.6, 0.3, 0.75}, at::kDouble);
  const at::Tensor ref = at::tensor({0.8, 0.5, 0.4, 0.7, 0.6, 0.7, 0.2, 0.9}, at::kDouble).reshape({2, 4});
  const at::Tensor in = at::tensor({1, 0, 0, 1, 1, 1, 0, 0}).to(at::kBool).reshape({2, 4});
  const at::Tensor pz = at::tensor({0.5, 0.72, 0.2, 0.9, 0.35}, at::kDouble);
  const at::Tensor ref_z =
      at::tensor({0.5, 0.6, 0.3, 0.8, 0.6, 0.4, 0.8, 0.25, 0.72, 0.3}, at::kDouble).reshape({2, 5});
  struct Expected {
    double gamma, a;
    std::vector<double> online, offline;                    // the paper's fraction (break_ties false)
    std::vector<double> online_broken, offline_broken;      // ties broken by the ratio (the default)
  };
  // Printed by `/usr/bin/python3 tests/attacks/rmia_reference.py`; the nearest LR is at least
  // 0.006 from gamma in every case, so no tie depends on rounding.
  const std::vector<Expected> cases = {
      {1.0, 0.3, {1.0, 0.4, 0.4, 0.4}, {1.0, 0.6, 0.4, 0.6},
       {1.1125, 0.5, 0.5, 0.496774193548387}, {1.114285714285714, 0.694117647058824, 0.471005917159763, 0.689020771513353}},
      {1.5, 0.3, {0.4, 0.0, 0.0, 0.0}, {0.6, 0.4, 0.0, 0.2},
       {0.5125, 0.1, 0.1, 0.096774193548387}, {0.714285714285714, 0.494117647058824, 0.071005917159763, 0.289020771513353}},
      {1.0, 1.0, {1.0, 0.4, 0.4, 0.4}, {1.0, 1.0, 0.4, 0.4},
       {1.1125, 0.5, 0.5, 0.496774193548387}, {1.128571428571429, 1.109090909090909, 0.5, 0.490909090909091}},
      {0.8, 0.0, {1.0, 1.0, 1.0, 0.8}, {1.0, 0.8, 0.4, 0.8},
       {1.1125, 1.1, 1.1, 0.896774193548387}, {1.109090909090909, 0.888888888888889, 0.463157894736842, 0.888235294117647}},
  };
  for (const Expected& e : cases) {
    INFO("gamma " << e.gamma << ", a " << e.a);
    const RmiaScores plain = rmia_scores(px, ref, in, pz, ref_z, RmiaParameters{e.gamma, e.a, false});
    const RmiaScores broken = rmia_scores(px, ref, in, pz, ref_z, RmiaParameters{e.gamma, e.a});
    const std::vector<double> online = to_vector(plain.online), offline = to_vector(plain.offline);
    const std::vector<double> online_broken = to_vector(broken.online), offline_broken = to_vector(broken.offline);
    for (std::size_t i = 0; i < e.online.size(); ++i) {
      CHECK(online[i] == Approx(e.online[i]).margin(1e-12));
      CHECK(offline[i] == Approx(e.offline[i]).margin(1e-12));
      CHECK(online_broken[i] == Approx(e.online_broken[i]).margin(1e-12));
      CHECK(offline_broken[i] == Approx(e.offline_broken[i]).margin(1e-12));
    }
  }
}

TEST_CASE("RMIA rejects bad parameters and shapes with one clear message", "[attacks][mia][rmia]") {
  const at::Tensor px = at::full({4}, 0.5, at::kDouble), ref = at::full({2, 4}, 0.5, at::kDouble);
  const at::Tensor in = at::zeros({2, 4}, at::kBool), pz = at::full({3}, 0.5, at::kDouble);
  const at::Tensor ref_z = at::full({2, 3}, 0.5, at::kDouble);
  CHECK_THROWS_WITH(rmia_scores(px, ref, in, pz, ref_z, RmiaParameters{0, 0.3}),
                    Catch::Contains("attack.rmia_gamma must be finite and > 0, got 0"));
  CHECK_THROWS_WITH(rmia_scores(px, ref, in, pz, ref_z, RmiaParameters{1, 1.5}),
                    Catch::Contains("attack.rmia_offline_a must be in [0, 1], got 1.5"));
  CHECK_THROWS_WITH(rmia_scores(px, ref, in, pz, at::full({3, 3}, 0.5, at::kDouble), RmiaParameters{}),
                    Catch::Contains("population probabilities must be [2, P]"));
  CHECK_THROWS_WITH(rmia_scores(px, ref.t(), in, pz, ref_z, RmiaParameters{}),
                    Catch::Contains("must be [S, 4]"));
  CHECK_THROWS_WITH(rmia_scores(at::zeros({4}, at::kDouble), ref, in, pz, ref_z, RmiaParameters{}),
                    Catch::Contains("target probabilities must be probabilities in (0, 1]"));
}

namespace {

// Probabilities of the true label from logits: each example has its own difficulty (logit
// mean ~ N(1, 2^2)); being in a model's training set adds `signal`; each model adds N(0, 0.5^2).
struct DrawnModels {
  at::Tensor target, members, reference, reference_in, population_target, population_reference;
};

DrawnModels draw_models(double signal, std::uint64_t seed) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  const std::int64_t N = 2000, S = 8, P = 1000;
  const at::Tensor base = 1 + 2 * at::randn({N}, g, at::kDouble);
  const at::Tensor base_z = 1 + 2 * at::randn({P}, g, at::kDouble);
  DrawnModels d;
  d.members = at::rand({N}, g, at::kDouble) < 0.5;
  d.reference_in = at::rand({S, N}, g, at::kDouble) < 0.5;
  d.target = at::sigmoid(base + signal * d.members.to(at::kDouble) + 0.5 * at::randn({N}, g, at::kDouble));
  d.reference =
      at::sigmoid(base + signal * d.reference_in.to(at::kDouble) + 0.5 * at::randn({S, N}, g, at::kDouble));
  d.population_target = at::sigmoid(base_z + 0.5 * at::randn({P}, g, at::kDouble));
  d.population_reference = at::sigmoid(base_z + 0.5 * at::randn({S, P}, g, at::kDouble));
  return d;
}

}  // namespace

TEST_CASE("RMIA is at chance without a membership signal and well above with one", "[attacks][mia][rmia]") {
  // Without signal the scores are independent of membership, so the AUC is the Mann-Whitney
  // statistic under its null: sd = sqrt((n1 + n0 + 1) / (12 n1 n0)) = 0.0129 for 1000 + 1000
  // candidates (ties only shrink it); |AUC - 0.5| < 0.065 (5 sd) has alpha < 1e-6.
  const DrawnModels none = draw_models(0.0, 41);
  const RmiaScores at_chance = rmia_scores(none.target, none.reference, none.reference_in, none.population_target,
                                           none.population_reference, RmiaParameters{});
  CHECK(std::abs(roc_summary(at_chance.online, none.members).auc - 0.5) < 0.065);
  CHECK(std::abs(roc_summary(at_chance.offline, none.members).auc - 0.5) < 0.065);
  // Membership adds 2 to the logit (4 times the model noise): both variants find it. A version
  // that compares z with x the wrong way round scores below 0.5 and fails here.
  const DrawnModels some = draw_models(2.0, 42);
  const RmiaScores found = rmia_scores(some.target, some.reference, some.reference_in, some.population_target,
                                       some.population_reference, RmiaParameters{});
  const double online = roc_summary(found.online, some.members).auc;
  const double offline = roc_summary(found.offline, some.members).auc;
  CHECK(online > 0.75);
  CHECK(offline > 0.7);
  // The online variant sees the models trained with x: it is at least as strong here.
  CHECK(online >= offline - 0.01);
  INFO("online " << online << ", offline " << offline);
}

TEST_CASE("RMIA breaks ties by the candidate's ratio: members no longer tie with non-members at the top",
          "[attacks][mia][rmia]") {
  // 100 members with ratio_x in [2, 3), 98 non-members in [0.1, 0.9), 2 non-members at 1.5, and
  // a population of 4 whose ratios are 0.5-0.8. The paper's fraction gives every member and the
  // 2 strong non-members the score 1 (all 4 z dominated): one group at 2% FPR, so the TPR at 1%
  // FPR is 0. Ties broken by ratio_x put the members first: TPR 1 before the first non-member.
  std::vector<double> ratio_x, member;
  for (int i = 0; i < 100; ++i) ratio_x.push_back(2 + 0.01 * i), member.push_back(1);
  for (int i = 0; i < 98; ++i) ratio_x.push_back(0.1 + 0.008 * i), member.push_back(0);
  for (int i = 0; i < 2; ++i) ratio_x.push_back(1.5), member.push_back(0);
  const at::Tensor x = at::tensor(ratio_x, at::kDouble), members = at::tensor(member, at::kDouble).to(at::kBool);
  const at::Tensor z = at::tensor({0.5, 0.6, 0.7, 0.8}, at::kDouble);
  const at::Tensor plain = rmia_dominance(x, z, 1.0, false), broken = rmia_dominance(x, z, 1.0, true);
  CHECK(std::get<0>(at::_unique(plain)).numel() <= 5);  // P + 1 values at most
  CHECK(roc_summary(plain, members).tpr_at_1_percent == 0.0);
  CHECK(roc_summary(broken, members).tpr_at_1_percent == 1.0);
  // The count is kept: the tie-break adds less than 1 / P.
  CHECK(at::equal(at::floor(broken * 4), plain * 4));
}

TEST_CASE("RMIA with ties broken: its ROC is that of the ratio, whatever the population size",
          "[attacks][mia][rmia]") {
  // For one target and one population the count is a step function of ratio_x = Pr(x|theta) /
  // Pr(x), so with ties broken by ratio_x the order is that of ratio_x: the same ROC at P = 50
  // and at P = 1000. The paper's plain fraction at P = 50 and 1000 is never above it (the
  // refined order has every vertex of the coarse ROC) and approaches it as P grows.
  const DrawnModels d = draw_models(2.0, 43);
  const auto scores = [&](std::int64_t P, bool break_ties) {
    return rmia_scores(d.target, d.reference, d.reference_in, d.population_target.narrow(0, 0, P),
                       d.population_reference.narrow(1, 0, P), RmiaParameters{1.0, 0.3, break_ties})
        .online;
  };
  const RocSummary ratio = roc_summary(d.target / d.reference.mean(0), d.members);
  const RocSummary small = roc_summary(scores(50, true), d.members), full = roc_summary(scores(1000, true), d.members);
  CHECK(small.fpr == ratio.fpr);
  CHECK(small.tpr == ratio.tpr);
  CHECK(full.fpr == ratio.fpr);
  CHECK(full.tpr == ratio.tpr);
  const double tpr_plain_small = roc_summary(scores(50, false), d.members).tpr_at_1_percent;
  const double tpr_plain_full = roc_summary(scores(1000, false), d.members).tpr_at_1_percent;
  INFO("TPR at 1% FPR: plain P = 50 " << tpr_plain_small << ", plain P = 1000 " << tpr_plain_full << ", ties broken "
                                      << full.tpr_at_1_percent);
  CHECK(tpr_plain_small <= full.tpr_at_1_percent);
  CHECK(tpr_plain_full <= full.tpr_at_1_percent);
  CHECK(tpr_plain_full >= full.tpr_at_1_percent - 0.02);
}
