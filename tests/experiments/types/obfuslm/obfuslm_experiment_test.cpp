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
