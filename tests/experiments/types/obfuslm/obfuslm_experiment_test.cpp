// Experiment type `obfuslm` on the real stories260K model (and GloVe for the config checks):
// the k = 1 flow is the clean model, obfuscation at small eps defeats the KNN attack that
// recovers everything at large eps, the anonymity game reports per pair, and bad keys are
// rejected before any work with the key named.
#include "tests/catch.h"

#include <fstream>
#include <sstream>

#include "tests/test_run.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

const char* kConfig = R"(type: obfuslm
data: {max_sentences: 40}
language_model: {texts: 2, tokens: 16, generate: 12}
attack: {anonymity_clusters: 10, anonymity_trials: 200}
sweep:
  obfuscation.k: [1, 10]
  obfuscation.epsilon: [0.3, 1000]
)";

}  // namespace

TEST_CASE("obfuslm on stories260K: k = 1 is the clean model, small eps hides tokens", "[engine][obfuslm]") {
  ExperimentRun run("embpriv_obfuslm_test");
  const ResultsTable t = run(kConfig);
  REQUIRE(t.rows() == 4);
  // Rows in grid order: (k=1, 0.3), (k=1, 1000), (k=10, 0.3), (k=10, 1000).
  for (std::size_t row : {0u, 1u}) {
    CHECK(number_at_row(t, "k", row) == 1);
    CHECK(number_at_row(t, "clusters", row) == 512);
    CHECK(number_at_row(t, "vocab_top1_recovery", row) == 1.0);  // the clean rows, shuffled
    CHECK(number_at_row(t, "stream_rouge_l", row) == 1.0);
    CHECK(number_at_row(t, "lm_next_token_agreement", row) == 1.0);
    CHECK(number_at_row(t, "lm_perplexity_obfuscated", row) == Approx(number_at_row(t, "lm_perplexity_clean", row)));
    CHECK(text_at_row(t, "generated_text", row).rfind("Once upon a time, there was a little girl named Lily", 0) == 0);
  }
  // k = 10: clusters of about 10 rows; eps = 0.3 mixes them (KNN mostly fails), eps = 1000
  // leaves each row nearly itself (KNN recovers nearly all).
  CHECK(number_at_row(t, "mean_cluster_size", 2) > 5);
  CHECK(number_at_row(t, "vocab_top1_recovery", 2) < 0.4);
  CHECK(number_at_row(t, "vocab_top1_recovery", 3) > 0.9);
  CHECK(number_at_row(t, "stream_rouge_l", 2) < number_at_row(t, "stream_rouge_l", 3));
  CHECK(number_at_row(t, "lm_next_token_agreement", 2) < number_at_row(t, "lm_next_token_agreement", 3));
  CHECK(number_at_row(t, "anonymity_pairs", 2) == 10);
  CHECK(number_at_row(t, "anonymity_accuracy", 2) >= 0.4);
  // eps = 1000: members told apart, except in clusters of the near-duplicate byte-token rows.
  CHECK(number_at_row(t, "anonymity_accuracy", 3) > number_at_row(t, "anonymity_accuracy", 2) + 0.15);
  CHECK(number_at_row(t, "anonymity_eps_lower_max", 3) > 3);
  CHECK(std::isnan(number_at_row(t, "anonymity_accuracy", 0)));  // k = 1: no pair to play
  CHECK(text_at_row(t, "generated_text", 2).rfind("Once upon a time", 0) == 0);
}

TEST_CASE("obfuslm rejects bad keys before any work, naming them", "[engine][obfuslm]") {
  ExperimentRun run("embpriv_obfuslm_bad_test");
  const auto dry_run = [&](const std::string& yaml) { return run.dry_run(yaml); };
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {epsilon: 0}\n"),
                    Contains("line 2") && Contains("obfuscation.epsilon must be > 0, got 0"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {k: 0}\n"), Contains("obfuscation.k must be >= 1"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {threshold: 2}\n"), Contains("must be in [0, 1]"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {normalization: softmax}\n"),
                    Contains("obfuscation.normalization") && Contains("sum or exp"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {cluster_size: 3}\n"), Contains("cluster_size"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\ndata: {vocabulary: glove, glove: nowhere.json}\n"),
                    Contains("data.glove") && Contains("not found"));
}

TEST_CASE("obfuslm's baselines: each occurrence (or row) perturbed by the mechanism, the same bits at any thread count",
          "[engine][obfuslm]") {
  // stories260K's 512 rows, 20 sentences: small eps hides the tokens, large eps does not; the
  // ObfusLM-only columns are NaN; one row per (method, draw, eps).
  const std::string config = R"(type: obfuslm
data: {max_sentences: 20}
language_model: {texts: 1, tokens: 4, generate: 2}
obfuscation: {clip_norm: 2}
sweep:
  obfuscation.method: [gaussian, laplace, vmf]
  obfuscation.draw: [occurrence, vocabulary]
  obfuscation.epsilon: [0.1, 10000]
)";
  ExperimentRun run("embpriv_obfuslm_baselines_test");
  const ResultsTable one = run(config, {"seeds=1", "threads=1"});
  const ResultsTable two = run(config, {"seeds=1", "threads=2"});
  REQUIRE(one.rows() == 12);
  for (const std::string& column : {"vocab_top1_recovery", "vocab_topk_recovery", "stream_top1_recovery",
                                    "stream_rouge_l", "mean_cosine", "mean_norm_ratio"}) {
    for (std::size_t row = 0; row < one.rows(); ++row) {
      INFO(column << ", row " << row);
      CHECK(text_at_row(one, "status", row) == "ok");
      CHECK(number_at_row(one, column, row) == number_at_row(two, column, row));  // bit for bit
    }
  }
  for (std::size_t row = 0; row < one.rows(); row += 2) {
    INFO("row " << row << ": " << text_at_row(one, "obfuscation.method", row) << ", "
                << text_at_row(one, "obfuscation.draw", row));
    CHECK(number_at_row(one, "vocab_top1_recovery", row) < 0.2);   // eps 0.1
    CHECK(number_at_row(one, "vocab_top1_recovery", row + 1) > 0.9);  // eps 10000
    CHECK(number_at_row(one, "stream_top1_recovery", row + 1) > 0.9);
    CHECK(number_at_row(one, "epsilon", row) == 0.1);
    for (const char* column : {"k", "threshold", "clusters", "anonymity_accuracy", "max_abs_weight",
                               "lm_next_token_agreement", "sentiment_accuracy_obfuscated"}) {
      CHECK(std::isnan(number_at_row(one, column, row)));
    }
  }
}

TEST_CASE("obfuslm's baselines reject bad keys before any work, naming them", "[engine][obfuslm]") {
  ExperimentRun run("embpriv_obfuslm_baselines_bad_test");
  const auto dry_run = [&](const std::string& yaml) { return run.dry_run(yaml); };
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: santext}\n"),
                    Contains("obfuscation.method") && Contains("obfuslm, gaussian, laplace or vmf"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: gaussian, epsilon: -1}\n"),
                    Contains("obfuscation.epsilon must be > 0, got -1"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: gaussian}\n"),
                    Contains("obfuscation.clip_norm: method gaussian clips every row to norm C"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: laplace}\n"),
                    Contains("obfuscation.clip_norm: method laplace"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: vmf, beta: 0}\n"),
                    Contains("obfuscation.beta must be > 0"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: gaussian, clip_norm: 1, delta: 1}\n"),
                    Contains("obfuscation.delta"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\ntask: classification\nclassifier: {model: random}\n"
                            "obfuscation: {method: vmf}\n"),
                    Contains("obfuscation.method: vmf is a baseline of task vocabulary only"));
  CHECK(dry_run("type: obfuslm\nobfuscation: {method: vmf}\n") == 0);
}
