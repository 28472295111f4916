// Type obfuslm with obfuscation.method: mechanism (ObfusLM's baselines at matched utility), on
// the real stories260K model: the occurrence draw is what type inversion measures, bit for bit;
// the vocabulary draw sends one noisy table through ObfusLM's flow; a row names its mechanism and
// budget; bad keys are refused before any work, naming the key.
#include "tests/catch.h"

#include <cmath>

#include "tests/test_run.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

const char* kMechanism = "mechanism: {name: gaussian, epsilon: 30, delta: 1.0e-5, clip_norm: 3}\n";

}  // namespace

TEST_CASE("obfuslm's occurrence baseline is type inversion's measurement, bit for bit", "[engine][obfuslm]") {
  // No sweep in either config: the one point has the same seed and point id, so the same noise.
  ExperimentRun run("embpriv_obfuslm_baseline_test");
  const ResultsTable baseline = run(std::string("type: obfuslm\ndata: {max_sentences: 40}\n"
                                                "language_model: {texts: 2, tokens: 16, generate: 0}\n"
                                                "attack: {anonymity_clusters: 0}\n"
                                                "obfuscation: {method: mechanism, draw: occurrence}\n") +
                                    kMechanism);
  const ResultsTable inversion = run(std::string("type: inversion\ndata: {max_sentences: 40}\n"
                                                 "language_model: {texts: 2, tokens: 16}\n") +
                                     kMechanism);
  REQUIRE(baseline.rows() == 1);
  REQUIRE(inversion.rows() == 1);
  CHECK(text_at_row(baseline, "method", 0) == "gaussian");
  CHECK(text_at_row(baseline, "draw", 0) == "occurrence");
  CHECK(number_at_row(baseline, "epsilon", 0) == 30);
  // Neither nothing nor everything is recovered here, so equality is not a coincidence of 0 or 1.
  const double top1 = number_at_row(inversion, "top1_recovery", 0);
  CHECK(top1 > 0.05);
  CHECK(top1 < 0.95);
  CHECK(number_at_row(baseline, "stream_top1_recovery", 0) == top1);
  CHECK(number_at_row(baseline, "stream_topk_recovery", 0) == number_at_row(inversion, "topk_recovery", 0));
  CHECK(number_at_row(baseline, "stream_rouge_l", 0) == number_at_row(inversion, "rouge_l", 0));
  // (The language-model texts are seeded by the whole language_model section, which type obfuslm
  // extends with generate and prompt: that utility is compared in the next case instead.)
  CHECK(number_at_row(baseline, "epsilon_actual", 0) == number_at_row(inversion, "epsilon_actual", 0));
  CHECK(number_at_row(baseline, "sigma", 0) == number_at_row(inversion, "sigma", 0));
}

TEST_CASE("obfuslm's baselines: one noisy table or fresh noise, named by mechanism and budget", "[engine][obfuslm]") {
  ExperimentRun run("embpriv_obfuslm_baseline_draws_test");
  const ResultsTable t = run(R"(type: obfuslm
data: {max_sentences: 40}
language_model: {texts: 2, tokens: 16, generate: 8}
attack: {anonymity_clusters: 10, anonymity_trials: 200}
obfuscation: {method: mechanism}
mechanism: {name: vmf, epsilon: 1, beta: 1}
sweep:
  obfuscation.draw: [occurrence, vocabulary]
  mechanism.epsilon: [1, 100000]
)");
  REQUIRE(t.rows() == 4);
  // Rows in grid order: (occurrence, 1), (occurrence, 1e5), (vocabulary, 1), (vocabulary, 1e5).
  for (std::size_t row = 0; row < 4; ++row) {
    INFO("row " << row);
    CHECK(text_at_row(t, "method", row) == "vmf");
    CHECK(text_at_row(t, "draw", row) == (row < 2 ? "occurrence" : "vocabulary"));
    CHECK(number_at_row(t, "epsilon", row) == (row % 2 == 0 ? 1 : 100000));
    CHECK(number_at_row(t, "k", row) == 1);  // every row its own cluster
    CHECK(number_at_row(t, "clusters", row) == 512);
    CHECK(std::isnan(number_at_row(t, "threshold", row)));
    CHECK(number_at_row(t, "anonymity_pairs", row) == 0);  // no cluster of two to play the game in
    CHECK(std::isnan(number_at_row(t, "max_abs_weight", row)));
    CHECK(text_at_row(t, "normalization", row).empty());
    CHECK(number_at_row(t, "epsilon_actual", row) == number_at_row(t, "epsilon", row));  // vMF: by construction
  }
  // eps 1 on d = 64 directions hides every token and leaves the model nothing to read; eps 1e5
  // hides none, and the model reads through.
  for (std::size_t row : {0u, 2u}) {
    CHECK(number_at_row(t, "vocab_top1_recovery", row) < 0.05);
    CHECK(number_at_row(t, "stream_top1_recovery", row) < 0.1);
    CHECK(number_at_row(t, "lm_next_token_agreement", row) < 0.3);
  }
  for (std::size_t row : {1u, 3u}) {
    CHECK(number_at_row(t, "vocab_top1_recovery", row) > 0.95);
    CHECK(number_at_row(t, "stream_top1_recovery", row) > 0.95);
    CHECK(number_at_row(t, "lm_next_token_agreement", row) > 0.9);
  }
  // Only the one-table flow generates through the server (the shuffled ids need a fixed table).
  CHECK(text_at_row(t, "generated_text", 1).empty());
  CHECK(text_at_row(t, "generated_text", 3).rfind("Once upon a time", 0) == 0);
}

TEST_CASE("obfuslm's baselines refuse bad keys before any work, naming them", "[engine][obfuslm]") {
  ExperimentRun run("embpriv_obfuslm_baseline_bad_test");
  const auto dry_run = [&](const std::string& yaml) { return run.dry_run(yaml); };
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: gaussian}\n"),
                    Contains("obfuscation.method") && Contains("obfuslm or mechanism"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: mechanism, draw: sometimes}\n"),
                    Contains("obfuscation.draw") && Contains("occurrence or vocabulary"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\nobfuscation: {method: mechanism}\nmechanism: {name: nosuch, epsilon: 1}\n"),
                    Contains("mechanism") && Contains("nosuch"));
  CHECK_THROWS_WITH(dry_run("type: obfuslm\ntask: classification\nobfuscation: {method: mechanism}\n"),
                    Contains("obfuscation.method") && Contains("task classification"));
  CHECK(dry_run(std::string("type: obfuslm\nobfuscation: {method: mechanism}\n") + kMechanism) == 0);
}
