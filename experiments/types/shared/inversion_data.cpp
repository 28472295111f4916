#include "experiments/types/shared/inversion_data.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "data/tokenizers/hf_tokenizer_json.h"
#include "data/tokenizers/unicode_categories.h"
#include "data/tokenizers/llama2c_tokenizer_adapter.h"
#include "data/tokenizers/word_tokenizer.h"
#include "core/device.h"
#include "core/error.h"
#include "core/rng.h"
#include "models/language_model_utility.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/types/inversion/inversion_keys.h"

namespace embpriv {

std::string tokenizer_for_model(const std::string& model, const std::string& tokenizer) {
  if (tokenizer != "auto") return tokenizer;
  std::error_code ignored;
  try {
    if (std::filesystem::is_directory(resolve_data_path(model), ignored)) return model;  // its tokenizer.json
  } catch (const Error&) {
    // data.model is missing: check_point names it; the tokenizer falls back as for a .bin
  }
  return "tinyllama/tok512.bin";
}

InversionSettings read_vocabulary_settings(const YAML::Node& c, const Key<std::int64_t>& glove_words,
                                           TokenMask mask, KnnMetric metric) {
  using namespace vocabulary_key;
  InversionSettings s{kVocabulary(c), kModel(c),       kTokenizer(c), kGlove(c),       kSentences(c),
                      mask,           metric,          glove_words(c), kMaxSentences(c), kK(c),
                      kTexts(c),      kTokens(c),      kTemperature(c)};
  s.tokenizer = tokenizer_for_model(s.model, s.tokenizer);
  s.train_sentences = kTrainSentences(c);
  // obfuslm's prompt is text every row encodes: invalid UTF-8 is refused here, before any row,
  // as the tokenizers refuse it (data/tokenizers/hf_tokenizer.h).
  if (const YAML::Node prompt = find_path(c, kPrompt.path()); prompt && prompt.IsScalar()) {
    const std::string text = prompt.as<std::string>();
    require_key(utf8_lossy(text) == text, kPrompt.path(), "is not valid UTF-8");
  }
  if (c["device"] && c["device"].IsScalar()) s.device = c["device"].as<std::string>();
  return s;
}

InversionSettings read_inversion_settings(const YAML::Node& c) {
  using namespace inversion_key;
  InversionSettings s = read_vocabulary_settings(c, kGloveWords, kMask(c), kMetric(c));
  s.learned = kLearned(c);
  s.learned_epochs = kLearnedEpochs(c);
  s.learned_window = kLearnedWindow(c);
  s.learned_model = kLearnedModel(c);
  require_key(!s.learned || !s.train_sentences.empty(), kLearned.path(),
          "needs public training text: utility.train_sentences must name at least one file");
  // Both learned attacks end in a classifier over the vocabulary (logits [tokens, V] and their
  // gradient, attacks/learned_inversion.h and attacks/invbert.h): on GloVe over the first
  // data.glove_words words, which the KNN attack of the same row searches too.
  constexpr std::int64_t kMaxLearnedGloveWords = 50000;
  require_key(!s.learned || s.vocabulary == Vocabulary::stories260k ||
                  (s.glove_words >= 1 && s.glove_words <= kMaxLearnedGloveWords),
              kGloveWords.path(),
              "is " + std::to_string(s.glove_words) + ", but attack.learned on data.vocabulary: glove needs 1 to " +
                  std::to_string(kMaxLearnedGloveWords) +
                  " words (its classifier over all 341,479 GloVe words does not fit here)");
  return s;
}

namespace {

// What the punctuation mask reads of each token id: a llama2.c tokenizer's pieces; for a
// tokenizer.json, each token decoded alone, except byte-fallback tokens ("<0xNN>"), which keep
// their name as in llama2.c (a byte is never public).
void read_token_texts(InversionData& data, const std::string& tokenizer_path) {
  const Tokenizer& tokenizer = *data.tokenizer;
  const std::regex byte_name("<0x[0-9A-Fa-f]{2}>");
  std::vector<std::string> names;
  if (const auto* llama2c = dynamic_cast<const Llama2cTokenizerAdapter*>(&tokenizer)) {
    for (std::int64_t id = 0; id < tokenizer.size(); ++id) names.push_back(llama2c->llama2c().piece(id));
  } else {
    const std::filesystem::path json = std::filesystem::is_directory(tokenizer_path)
                                           ? std::filesystem::path(tokenizer_path) / "tokenizer.json"
                                           : std::filesystem::path(tokenizer_path);
    names = read_hf_tokenizer_json(json.string()).model.pieces;
  }
  for (std::int64_t id = 0; id < static_cast<std::int64_t>(names.size()); ++id) {
    const std::string& name = names[static_cast<std::size_t>(id)];
    const bool byte = std::regex_match(name, byte_name);
    data.byte_tokens.push_back(byte);
    data.token_texts.push_back(byte || dynamic_cast<const Llama2cTokenizerAdapter*>(&tokenizer)
                                   ? name
                                   : tokenizer.decode({id}));
  }
}

InversionData read_inversion_data(const InversionSettings& s) {
  InversionData loaded;
  if (s.vocabulary == Vocabulary::glove) {
    EmbeddingTable table = load_cached_glove(resolve_data_path(s.glove));
    if (s.glove_words > 0) table = table.first(s.glove_words);
    loaded.glove = std::make_shared<const EmbeddingTable>(std::move(table));
  } else {
    loaded.model = load_language_model(resolve_data_path(s.model), select_device(s.device));
    const std::string tokenizer_path = resolve_data_path(s.tokenizer);
    loaded.tokenizer = load_tokenizer(tokenizer_path);
    EMBPRIV_CHECK(loaded.tokenizer->size() <= loaded.model->vocab_size(),
                  "data.tokenizer '" << s.tokenizer << "' has " << loaded.tokenizer->size()
                                     << " tokens, more than the model's vocabulary of " << loaded.model->vocab_size());
    read_token_texts(loaded, tokenizer_path);
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
  std::string key = s.vocabulary == Vocabulary::glove ? s.glove + "\n" + std::to_string(s.glove_words) + "\n" + s.sentences
                                            : s.model + "\n" + s.tokenizer + "\n" + s.sentences + "\n" + s.device;
  for (const std::string& file : s.train_sentences) key += "\n" + file;
  return cache.get_or_make<InversionData>("inversion_data\n" + key, [&] { return read_inversion_data(s); });
}

const at::Tensor& sampled_texts(const InversionData& data, const InversionSettings& s, const YAML::Node& config,
                                std::uint64_t seed, RunCache& cache) {
  const std::uint64_t texts_seed = derive_seed(seed, fnv1a64(flow_yaml(config["language_model"])), "texts");
  const std::string key = "sampled_texts|" + s.model + "|" + std::to_string(s.stories) + "|" +
                          std::to_string(s.story_tokens) + "|" + flow_yaml(YAML::Node(s.temperature)) + "|" +
                          std::to_string(texts_seed);
  // A text of `tokens` tokens after <s> needs tokens + 1 positions of the model.
  const std::int64_t positions = data.model->max_sequence_length();
  EMBPRIV_CHECK(s.story_tokens < positions,
                "language_model.tokens " << s.story_tokens << " needs " << s.story_tokens + 1 << " positions, but data.model '"
                                         << s.model << "' has " << positions << " (max_position_embeddings of its "
                                         << "config.json, or a llama2.c seq_len); lower language_model.tokens to at most "
                                         << positions - 1);
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
    text.table = text.search_table = data.glove->vectors();
    text.special = at::zeros({data.glove->size()}, at::kBool);
    for (std::size_t i = 0; i < n; ++i) {
      const WordIds words = word_ids(sentences[i].text, *data.glove);
      text.unknown += words.unknown;
      const std::size_t begin = text.flat.size();
      for (std::int64_t id : words.ids) {
        if (id < 0) continue;
        text.flat.push_back(id);
        is_public.push_back(s.mask == TokenMask::punctuation && !has_word_character(data.glove->words()[id]));
      }
      text.spans.emplace_back(begin, text.flat.size());
    }
  } else {
    const Tokenizer& tokenizer = *data.tokenizer;
    text.search_table = data.model->embedding_table();  // on the run's device
    text.table = text.search_table.cpu();
    text.special = at::zeros({data.model->vocab_size()}, at::kBool);
    for (std::int64_t id = 0; id < tokenizer.size(); ++id) {
      if (tokenizer.is_special(id)) text.special[id] = true;  // <unk>, <s>, </s> in llama2.c
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::int64_t> ids = tokenizer.encode(sentences[i].text, /*add_special=*/true);
      std::size_t leading = 0;  // the template's special tokens (<s>) are not words
      while (leading < ids.size() && tokenizer.is_special(ids[leading])) ++leading;
      text.spans.emplace_back(text.flat.size() + leading, text.flat.size() + ids.size());
      for (std::int64_t id : ids) {
        text.flat.push_back(id);
        is_public.push_back(s.mask == TokenMask::punctuation &&
                            (tokenizer.is_special(id) ||
                             !has_word_character(data.token_texts[static_cast<std::size_t>(id)])));
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
