// Experiment type `mia` on real review sentences and GloVe at CI size: LiRA beats the
// loss-threshold attack at TPR at 1% FPR against an unprotected classifier (averaged over 3
// member splits), and a small eps brings every attack to chance; RMIA runs on the same shadows
// (from one on) and beats the loss threshold too. Fixed seeds.
#include <cmath>

#include "tests/catch.h"

#include "tests/test_run.h"

using namespace embpriv;

TEST_CASE("mia: LiRA beats the loss threshold on an unprotected classifier", "[engine][mia]") {
  ExperimentRun run("embpriv_mia_test");
  const ResultsTable t = run("type: mia\nseeds: 3\ndata: {perturb: false}\nattack: {shadows: 16}\n");
  REQUIRE(t.rows() == 3);
  double lira = 0, loss = 0, lira_auc = 0, loss_auc = 0;
  for (std::size_t row = 0; row < 3; ++row) {
    lira += number_at_row(t, "tpr_at_1%fpr_lira_online", row) / 3;
    loss += number_at_row(t, "tpr_at_1%fpr_loss", row) / 3;
    lira_auc += number_at_row(t, "auc_lira_online", row) / 3;
    loss_auc += number_at_row(t, "auc_loss", row) / 3;
    CHECK(number_at_row(t, "target_train_accuracy", row) > number_at_row(t, "target_test_accuracy", row));
  }
  CHECK(lira > 2 * loss);
  CHECK(lira > 0.03);
  CHECK(lira_auc > loss_auc + 0.05);
  CHECK(lira_auc > 0.65);
  CHECK(text_at_row(t, "mechanism_name", 0) == "none");
}

TEST_CASE("mia: at small eps the attacks are at chance", "[engine][mia]") {
  ExperimentRun run("embpriv_mia_eps_test");
  const ResultsTable t = run(R"(type: mia
attack: {shadows: 8}
mechanism: {name: gaussian, epsilon: 10, delta: 1.0e-5, clip_norm: 8}
)");
  REQUIRE(t.rows() == 1);
  CHECK(std::abs(number_at_row(t, "auc_lira_online", 0) - 0.5) < 0.08);
  CHECK(std::abs(number_at_row(t, "auc_loss", 0) - 0.5) < 0.08);
  REQUIRE(t.curves.size() == 1);  // the ROC curves of every attack
  CHECK(t.curves[0].arrays.size() == 14);  // loss, LiRA (4), RMIA (2): fpr and tpr each
}

TEST_CASE("mia: attack.center median centres LiRA on the shadows' medians", "[engine][mia]") {
  ExperimentRun run("embpriv_mia_median_test");
  const std::string config = "type: mia\ndata: {perturb: false}\nattack: {shadows: 8, center: CENTER}\n";
  const auto with = [&](const std::string& center) {
    std::string c = config;
    c.replace(c.find("CENTER"), 6, center);
    return run(c);
  };
  const ResultsTable mean = with("mean"), median = with("median");
  // The same target and shadows: the loss attack is unchanged, LiRA's scores move.
  CHECK(number_at_row(median, "auc_loss", 0) == number_at_row(mean, "auc_loss", 0));
  CHECK(number_at_row(median, "auc_lira_online", 0) != number_at_row(mean, "auc_lira_online", 0));
  CHECK(number_at_row(median, "auc_lira_online", 0) > number_at_row(median, "auc_loss", 0));
  CHECK_THROWS_WITH(run.dry_run("type: mia\nattack: {center: mode}\n"), Catch::Contains("attack.center must be mean or median, got 'mode'"));
}

TEST_CASE("mia: RMIA reads LiRA's shadows and runs from one reference model", "[engine][mia][rmia]") {
  ExperimentRun run("embpriv_mia_rmia_test");
  // One shadow: LiRA has no variance to fit (NaN); the loss threshold and RMIA run.
  const ResultsTable one = run("type: mia\ndata: {perturb: false}\nattack: {shadows: 1}\n");
  CHECK(std::isnan(number_at_row(one, "auc_lira_online", 0)));
  CHECK(std::isnan(number_at_row(one, "auc_lira_offline_fixed", 0)));
  CHECK(number_at_row(one, "auc_rmia_online", 0) > 0.55);
  CHECK(number_at_row(one, "auc_rmia_offline", 0) > 0.55);
  CHECK(number_at_row(one, "population", 0) == 400);
  // The population feeds RMIA alone: a smaller one leaves the loss threshold and LiRA (same
  // target, same shadows) unchanged to the last bit. RMIA's ties are broken by the candidate's
  // own ratio (attacks/rmia.h), so its order, and every ROC number, is the same at 50 and 400.
  const std::string config = "type: mia\ndata: {perturb: false}\nattack: {shadows: 4, population: POP}\n";
  const auto with = [&](const std::string& population) {
    std::string c = config;
    c.replace(c.find("POP"), 3, population);
    return run(c);
  };
  const ResultsTable full = with("400"), small = with("50");
  CHECK(number_at_row(small, "auc_loss", 0) == number_at_row(full, "auc_loss", 0));
  CHECK(number_at_row(small, "auc_lira_online", 0) == number_at_row(full, "auc_lira_online", 0));
  for (const char* column : {"auc_rmia_online", "auc_rmia_offline", "tpr_at_1%fpr_rmia_online",
                             "tpr_at_1%fpr_rmia_offline"}) {
    CHECK(number_at_row(small, column, 0) == number_at_row(full, column, 0));
  }
  // Against the unprotected classifier RMIA, like LiRA, beats the loss threshold.
  CHECK(number_at_row(full, "auc_rmia_online", 0) > number_at_row(full, "auc_loss", 0) + 0.05);
  CHECK_THROWS_WITH(run.dry_run("type: mia\nattack: {rmia_gamma: 0}\n"),
                    Catch::Contains("attack.rmia_gamma must be > 0"));
}

TEST_CASE("mia: rows that differ in attack keys attack the same models", "[engine][mia][rmia]") {
  ExperimentRun run("embpriv_mia_same_models_test");
  const ResultsTable swept =
      run("type: mia\ndata: {perturb: false}\nsweep:\n  attack.shadows: [2, 4]\n  attack.rmia_gamma: [1, 2]\n");
  REQUIRE(swept.rows() == 4);
  // One target for every row: the same accuracies and the same loss attack.
  for (std::size_t row = 1; row < 4; ++row) {
    CHECK(number_at_row(swept, "target_test_accuracy", row) == number_at_row(swept, "target_test_accuracy", 0));
    CHECK(number_at_row(swept, "auc_loss", row) == number_at_row(swept, "auc_loss", 0));
  }
  // Shadow k is the same model whatever the count: the row with 4 shadows equals a run with
  // 4 shadows and nothing swept, to the last bit.
  const ResultsTable alone = run("type: mia\ndata: {perturb: false}\nattack: {shadows: 4, rmia_gamma: 2}\n");
  const std::size_t row = 3;  // attack.shadows = 4, attack.rmia_gamma = 2
  REQUIRE(number_at_row(swept, "shadows", row) == 4);
  REQUIRE(std::get<std::vector<std::int64_t>>(swept.column("attack.rmia_gamma").values)[row] == 2);
  CHECK(number_at_row(swept, "auc_rmia_online", row) == number_at_row(alone, "auc_rmia_online", 0));
  CHECK(number_at_row(swept, "auc_lira_online", row) == number_at_row(alone, "auc_lira_online", 0));
  CHECK(number_at_row(swept, "tpr_at_1%fpr_rmia_offline", row) == number_at_row(alone, "tpr_at_1%fpr_rmia_offline", 0));
}
