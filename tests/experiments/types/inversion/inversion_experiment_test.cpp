// Experiment type `inversion` on the real stories260K model and yelp sentences, small sizes.
#include "tests/catch.h"

#include <fstream>
#include <sstream>

#include "experiments/engine/runner.h"
#include "tests/test_run.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

struct Run : ExperimentRun {
  Run() : ExperimentRun("embpriv_inversion_test") {}
};

const char* kConfig = R"(type: inversion
data: {max_sentences: 40}
language_model: {texts: 2, tokens: 12}
mechanism: {name: vmf, epsilon: 1, beta: 1}
sweep:
  mechanism.epsilon: [1, 100000]
)";

double value(const ResultsTable& t, const std::string& column, std::size_t row) {
  return number_at_row(t, column, row);
}

}  // namespace

TEST_CASE("KNN recovers nothing at small eps and everything at large eps", "[engine][attacks]") {
  Run run;
  const ResultsTable t = run(kConfig);
  REQUIRE(t.rows() == 2);
  // eps = 1: kappa = 1 on S^63, the outputs are near uniform: recovery near chance (1/509).
  CHECK(value(t, "top1_recovery", 0) < 0.05);
  CHECK(value(t, "topk_recovery", 0) < 0.1);
  CHECK(value(t, "mean_cosine", 0) < 0.2);
  // eps = 1e5: kappa = 1e5, the direction barely moves: every token and the model's output back.
  CHECK(value(t, "top1_recovery", 1) == 1.0);
  CHECK(value(t, "rouge_l", 1) == 1.0);
  CHECK(value(t, "lm_next_token_agreement", 1) > 0.95);
  CHECK(value(t, "lm_perplexity_perturbed", 1) == Approx(value(t, "lm_perplexity_clean", 1)).epsilon(0.05));
  CHECK(value(t, "lm_perplexity_perturbed", 0) > 3 * value(t, "lm_perplexity_clean", 0));
  CHECK(value(t, "public_share", 0) == 0);
  // Sentiment from mean-pooled token embeddings (trained on amazon + imdb, tested on the 40
  // yelp sentences): the clean accuracy is back at eps = 1e5. (40 test sentences are too few to
  // tell eps = 1 from chance: its standard error is 0.08.)
  CHECK(value(t, "sentiment_accuracy_clean", 0) > 0.6);
  CHECK(value(t, "sentiment_accuracy_train_perturbed", 1) ==
        Approx(value(t, "sentiment_accuracy_clean", 1)).margin(0.051));
}

TEST_CASE("Algorithm 1 leaves every token recoverable at eps = 1", "[engine][attacks]") {
  Run run;
  // Its fixed 45-degree deflection keeps each output nearer to its token than to any other.
  const ResultsTable t = run(kConfig, {"mechanism={name: vmf_tangent, beta: 1}", "mechanism.epsilon=1"});
  CHECK(value(t, "mean_cosine", 0) == Approx(0.7071067811865476).epsilon(1e-6));
  CHECK(value(t, "top1_recovery", 0) > 0.99);
}

TEST_CASE("the punctuation mask sends public tokens unchanged and counts only the others", "[engine][attacks]") {
  Run run;
  const ResultsTable t = run(kConfig, {"mask=punctuation"});
  CHECK(value(t, "public_share", 0) > 0.1);  // spaces, commas, full stops and <s>
  CHECK(value(t, "public_share", 0) < 0.5);
  CHECK(value(t, "top1_recovery", 0) < 0.05);  // public tokens are not counted as recovered
}

TEST_CASE("inversion configs with a missing file are rejected before any work", "[engine]") {
  Run run;
  CHECK_THROWS_WITH(run.dry_run("type: inversion\ndata: {sentences: sentiment/nowhere.json}\n"),
                    Contains("line 2") && Contains("data.sentences") && Contains("not found"));
}

TEST_CASE("inversion with the learned attack: trained on public sentences, compared with KNN", "[engine][attacks]") {
  Run run;
  const ResultsTable t = run(R"(type: inversion
data: {max_sentences: 60}
attack: {learned: true, learned_epochs: 3}
language_model: {texts: 0}
utility: {train_sentences: [sentiment/amazon.json]}
mechanism: {name: vmf, epsilon: 1000, beta: 1}
)");
  REQUIRE(t.rows() == 1);
  // eps = 1000: both attacks read nearly every token back.
  CHECK(value(t, "top1_recovery", 0) > 0.95);
  CHECK(value(t, "learned_top1_recovery", 0) > 0.8);
  CHECK(value(t, "learned_topk_recovery", 0) >= value(t, "learned_top1_recovery", 0));
  CHECK(value(t, "learned_rouge_l", 0) > 0.8);
}

TEST_CASE("inversion with InvBert: attack.learned_model transformer reads whole sentences", "[engine][attacks]") {
  Run run;
  const ResultsTable t = run(R"(type: inversion
data: {max_sentences: 40}
attack: {learned: true, learned_model: transformer, learned_epochs: 2}
language_model: {texts: 0}
utility: {train_sentences: [sentiment/amazon.json]}
mechanism: {name: vmf, epsilon: 1000, beta: 1}
)");
  REQUIRE(t.rows() == 1);
  // eps = 1000: the noise is negligible, and the tied decoder matches rows as KNN does.
  CHECK(value(t, "top1_recovery", 0) > 0.95);
  CHECK(value(t, "learned_top1_recovery", 0) > 0.9);
  CHECK(value(t, "learned_topk_recovery", 0) >= value(t, "learned_top1_recovery", 0));
  CHECK_THROWS_WITH(run.dry_run("type: inversion\nattack: {learned: true, learned_model: lstm}\n"),
                    Contains("attack.learned_model"));
}
