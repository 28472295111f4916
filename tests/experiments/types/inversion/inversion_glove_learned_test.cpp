// Experiment type `inversion` with the learned attacks on GloVe sentences (data.vocabulary:
// glove): InvBert and the window MLP classify over the first data.glove_words GloVe words, trained
// on amazon sentences perturbed alike, and recover the yelp words at large eps.
#include "tests/catch.h"

#include "experiments/engine/runner.h"
#include "tests/test_run.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

struct Run : ExperimentRun {
  Run() : ExperimentRun("embpriv_inversion_glove_learned_test") {}
};

}  // namespace

TEST_CASE("InvBert and the window MLP run on GloVe sentences and beat chance at large eps", "[engine][attacks]") {
  Run run;
  const ResultsTable t = run(R"(type: inversion
data: {vocabulary: glove, glove_words: 5000, max_sentences: 40}
attack: {learned: true, learned_epochs: 2}
utility: {train_sentences: [sentiment/amazon.json]}
mechanism: {name: vmf, epsilon: 1000, beta: 1}
sweep:
  attack.learned_model: [transformer, mlp]
)");
  REQUIRE(t.rows() == 2);
  for (std::size_t row = 0; row < 2; ++row) {
    // eps = 1000 on S^99: the rows barely move, so KNN reads nearly every word back. Chance for a
    // guess over 5,000 words is 2e-4; a learned attack that ignored its input and guessed the
    // most frequent training word would score that word's share of the yelp words, below 0.1
    // ("the" or "."), so 0.5 is far beyond both.
    CHECK(number_at_row(t, "top1_recovery", row) > 0.95);
    CHECK(number_at_row(t, "learned_top1_recovery", row) > 0.5);
    CHECK(number_at_row(t, "learned_topk_recovery", row) >= number_at_row(t, "learned_top1_recovery", row));
  }
  // All 341,479 words are refused for the learned attacks, naming the key to change.
  CHECK_THROWS_WITH(run.dry_run("type: inversion\ndata: {vocabulary: glove}\nattack: {learned: true}\n"),
                    Contains("data.glove_words") && Contains("needs 1 to 50000 words"));
}
