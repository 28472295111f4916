// Which columns are drawn as probabilities, and where chance lines go.
#include "tests/catch.h"

#include "experiments/plots/axis_conventions.h"

using namespace embpriv;

TEST_CASE("probabilities get a 0..1 axis; other quantities keep their own scale", "[plots]") {
  for (const char* y : {"top1_recovery", "learned_topk_recovery", "rouge_l", "auc_lira_online", "psr",
                        "sentiment_accuracy_train_perturbed", "tpr_at_1%fpr_loss", "lm_next_token_agreement",
                        "singleton_share", "false_flag_rate", "recall"}) {
    INFO(y);
    CHECK(axis_convention(y, false).probability);
  }
  for (const char* y : {"mean_cosine", "mean_norm_ratio", "eps_lower_bound", "lm_perplexity_clean", "clusters",
                        "epsilon_composed_rdp", "accuracy_drop", "accuracy_drop_finetuned"}) {
    INFO(y);
    CHECK_FALSE(axis_convention(y, false).probability);
    CHECK(axis_convention(y, false).references.empty());
  }
}

TEST_CASE("chance lines sit where a random guess would score", "[plots]") {
  const auto only_line = [](const std::string& y) {
    const AxisConvention c = axis_convention(y, false);
    REQUIRE(c.references.size() == 1);
    CHECK_FALSE(c.references[0].diagonal);
    return c.references[0].y;
  };
  CHECK(only_line("auc_lira_offline") == 0.5);
  CHECK(only_line("balanced_accuracy_loss") == 0.5);
  CHECK(only_line("sentiment_accuracy_obfuscated") == 0.5);  // 500 + 500 sentences per corpus
  CHECK(only_line("psr") == 0.5);                            // balanced test units
  CHECK(only_line("anonymity_accuracy") == 0.5);             // a two-choice game
  CHECK(only_line("tpr_at_1%fpr_lira_online") == 0.01);      // TPR = FPR for a guess
  CHECK(only_line("tpr_at_0.1%fpr_lira_online") == 0.001);
  // Top-1 recovery's chance is 1 / vocabulary size: no line.
  CHECK(axis_convention("top1_recovery", false).references.empty());
  // A ROC curve: the diagonal.
  const AxisConvention roc = axis_convention("roc_tpr_loss", true);
  CHECK(roc.probability);
  REQUIRE(roc.references.size() == 1);
  CHECK(roc.references[0].diagonal);
}
