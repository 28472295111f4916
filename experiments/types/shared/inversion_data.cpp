#include "experiments/types/shared/inversion_data.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cctype>

#include "data/data_paths.h"
#include "data/embedding_formats.h"
#include "data/word_tokenizer.h"
#include "core/rng.h"
#include "models/language_model_utility.h"
#include "experiments/engine/experiment_type.h"

namespace embpriv {

InversionSettings read_vocabulary_settings(const YAML::Node& c, const std::string& mask,
                                           const std::string& metric) {
  InversionSettings s{point_value<std::string>(c, "data.vocabulary"),
                      point_value<std::string>(c, "data.model"),
                      point_value<std::string>(c, "data.tokenizer"),
                      point_value<std::string>(c, "data.glove"),
                      point_value<std::string>(c, "data.sentences"),
                      mask,
                      metric,
                      point_value<std::int64_t>(c, "data.glove_words"),
                      point_value<std::int64_t>(c, "data.max_sentences"),
                      point_value<std::int64_t>(c, "attack.k"),
                      point_value<std::int64_t>(c, "language_model.texts"),
                      point_value<std::int64_t>(c, "language_model.tokens"),
                      point_value<double>(c, "language_model.temperature")};
  s.train_sentences = point_value<std::vector<std::string>>(c, "utility.train_sentences");
  return s;
}

InversionSettings read_inversion_settings(const YAML::Node& c) {
  InversionSettings s = read_vocabulary_settings(c, point_value<std::string>(c, "mask"),
                                                 point_value<std::string>(c, "attack.metric"));
  s.learned = point_value<bool>(c, "attack.learned");
  s.learned_epochs = point_value<std::int64_t>(c, "attack.learned_epochs");
  s.learned_window = point_value<std::int64_t>(c, "attack.learned_window");
  require_key(!s.learned || !s.train_sentences.empty(), "attack.learned",
          "needs public training text: utility.train_sentences must name at least one file");
  require_key(!s.learned || s.vocabulary == "stories260k", "attack.learned",
          "runs on data.vocabulary: stories260k (a classifier over 341,479 GloVe words does not fit here)");
  return s;
}

namespace {

InversionData read_inversion_data(const InversionSettings& s) {
  InversionData loaded;
  if (s.vocabulary == "glove") {
    EmbeddingTable table = load_cached_glove(resolve_data_path(s.glove));
    if (s.glove_words > 0) table = table.first(s.glove_words);
    loaded.glove = std::make_shared<const EmbeddingTable>(std::move(table));
  } else {
    loaded.model = std::make_shared<const Llama2cModel>(load_llama2c_checkpoint(resolve_data_path(s.model)));
    loaded.tokenizer = std::make_shared<const Llama2cTokenizer>(
        Llama2cTokenizer::load(resolve_data_path(s.tokenizer), loaded.model->config().vocab_size));
  }
  loaded.sentences = load_sentiment_sentences(resolve_data_path(s.sentences));
  for (const std::string& file : s.train_sentences) {
    for (LabelledSentence& sentence : load_sentiment_sentences(resolve_data_path(file))) {
      loaded.train_sentences.push_back(std::move(sentence));
    }
  }
  return loaded;
}

}  // namespace

const InversionData& load_inversion_data(const InversionSettings& s, RunCache& cache) {
  std::string key = s.vocabulary == "glove" ? s.glove + "\n" + std::to_string(s.glove_words) + "\n" + s.sentences
                                            : s.model + "\n" + s.tokenizer + "\n" + s.sentences;
  for (const std::string& file : s.train_sentences) key += "\n" + file;
  return cache.get_or_make<InversionData>("inversion_data\n" + key, [&] { return read_inversion_data(s); });
}

const at::Tensor& sampled_texts(const InversionData& data, const InversionSettings& s, const YAML::Node& config,
                                std::uint64_t seed, RunCache& cache) {
  const std::uint64_t texts_seed = derive_seed(seed, fnv1a64(flow_yaml(config["language_model"])), "texts");
  const std::string key = "sampled_texts|" + s.model + "|" + std::to_string(s.stories) + "|" +
                          std::to_string(s.story_tokens) + "|" + flow_yaml(YAML::Node(s.temperature)) + "|" +
                          std::to_string(texts_seed);
  return cache.get_or_make<at::Tensor>(
      key, [&] { return sample_texts(*data.model, s.stories, s.story_tokens, s.temperature, texts_seed); });
}

bool has_word_character(const std::string& piece) {
  return std::any_of(piece.begin(), piece.end(), [](unsigned char c) { return std::isalnum(c) || c >= 0x80; });
}

PrivateText encode_sentences(const InversionData& data, const InversionSettings& s,
                             const std::vector<LabelledSentence>& sentences, std::size_t count) {
  PrivateText text;
  const std::size_t n = std::min(count, sentences.size());
  for (std::size_t i = 0; i < n; ++i) text.labels.push_back(sentences[i].label);
  std::vector<bool> is_public;
  if (data.glove) {
    // GloVe words: unknown words are left out of the stream (and counted).
    text.table = data.glove->vectors();
    text.special = at::zeros({data.glove->size()}, at::kBool);
    for (std::size_t i = 0; i < n; ++i) {
      const WordIds words = word_ids(sentences[i].text, *data.glove);
      text.unknown += words.unknown;
      const std::size_t begin = text.flat.size();
      for (std::int64_t id : words.ids) {
        if (id < 0) continue;
        text.flat.push_back(id);
        is_public.push_back(s.mask == "punctuation" && !has_word_character(data.glove->words()[id]));
      }
      text.spans.emplace_back(begin, text.flat.size());
    }
  } else {
    const Llama2cTokenizer& tokenizer = *data.tokenizer;
    text.table = data.model->embedding_table();
    text.special = at::zeros({data.model->config().vocab_size}, at::kBool);
    for (std::int64_t id : {Llama2cTokenizer::kUnknown, Llama2cTokenizer::kBos, Llama2cTokenizer::kEos}) {
      text.special[id] = true;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::int64_t> ids = tokenizer.encode(sentences[i].text);
      text.spans.emplace_back(text.flat.size() + 1, text.flat.size() + ids.size());  // without <s>
      for (std::int64_t id : ids) {
        text.flat.push_back(id);
        is_public.push_back(s.mask == "punctuation" &&
                            (tokenizer.is_special(id) || !has_word_character(tokenizer.piece(id))));
      }
    }
  }
  std::vector<std::uint8_t> flags(is_public.begin(), is_public.end());
  text.public_tokens = at::from_blob(flags.data(), {static_cast<std::int64_t>(flags.size())}, at::kByte)
                           .to(at::kBool);
  return text;
}

SentenceFeatures mean_pooled(const PrivateText& text, const at::Tensor& rows) {
  std::vector<at::Tensor> means;
  std::vector<std::int64_t> labels;
  for (std::size_t i = 0; i < text.spans.size(); ++i) {
    const auto [begin, end] = text.spans[i];
    if (end <= begin) continue;
    means.push_back(rows.narrow(0, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end - begin)).mean(0));
    labels.push_back(text.labels[i]);
  }
  EMBPRIV_CHECK(!means.empty(), "no sentence has a token in the vocabulary");
  return {at::stack(means), at::tensor(labels, at::kLong)};
}

}  // namespace embpriv
