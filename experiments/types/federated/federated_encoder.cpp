#include "experiments/types/federated/federated_encoder.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/log.h"
#include "data/tables/data_paths.h"
#include "data/tokenizers/unicode_categories.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/types/federated/federated_keys.h"
#include "models/encoder_text_classifier.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;

// The folder's config.json as a two-label sequence classifier (a folder without a head gets
// one: add_classification_head; one of another size is refused).
HfEncoderConfig classifier_config(const EncoderModelSettings& s, const std::string& folder) {
  HfEncoderConfig c = read_hf_encoder_config(folder);
  const std::string wanted = to_string(s.kind);
  require_key(c.model_type == wanted, "model.path",
              "'" + s.path + "' holds a model_type '" + c.model_type + "' model, but model.kind is " + wanted);
  require_key(!c.sequence_classification || c.num_labels == 2, "model.path",
              "'" + s.path + "' holds a sequence classifier of " + std::to_string(c.num_labels) +
                  " labels; flagging private units needs 2 (or no head: one is drawn)");
  c.sequence_classification = true;
  c.num_labels = 2;
  return c;
}

// The id sequence of one unit (encoder_units).
std::vector<std::int64_t> unit_ids(const Tokenizer& tokenizer, const std::string& bytes, std::int64_t max_tokens) {
  // Some e-mails are not UTF-8 (Latin-1 bodies): their invalid bytes become U+FFFD, as Python's
  // bytes.decode("utf-8", errors="replace") gives the text a transformers tokenizer reads.
  const std::string text = utf8_lossy(bytes);
  std::vector<std::int64_t> plain = tokenizer.encode(text, false);
  const std::vector<std::int64_t> full = tokenizer.encode(text, true);
  // The template of a single text puts special tokens around the text's own ids: full = prefix
  // + plain + suffix (BertProcessing, RobertaProcessing, TemplateProcessing's "single").
  std::size_t prefix = 0;
  const auto fits = [&](std::size_t p) {
    return p + plain.size() <= full.size() && std::equal(plain.begin(), plain.end(), full.begin() + static_cast<std::ptrdiff_t>(p));
  };
  while (prefix + plain.size() <= full.size() && !fits(prefix)) ++prefix;
  EMBPRIV_CHECK(fits(prefix), "the tokenizer's template does not keep a text's ids together, so a unit cannot be cut");
  const std::size_t text_size = plain.size(), special = full.size() - text_size;
  EMBPRIV_CHECK(static_cast<std::int64_t>(special) < max_tokens,
                "units of " << max_tokens << " tokens leave no room for the text beside the template's " << special
                            << " special tokens");
  plain.resize(std::min(plain.size(), static_cast<std::size_t>(max_tokens) - special));
  std::vector<std::int64_t> out(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(prefix));
  out.insert(out.end(), plain.begin(), plain.end());
  out.insert(out.end(), full.begin() + static_cast<std::ptrdiff_t>(prefix + text_size), full.end());
  return out;
}

}  // namespace

const char* to_string(PrivacyModelKind kind) {
  switch (kind) {
    case PrivacyModelKind::bert: return "bert";
    case PrivacyModelKind::roberta: return "roberta";
    case PrivacyModelKind::transformer: break;
  }
  return "transformer";
}

EncoderModelSettings read_encoder_model(const YAML::Node& c) {
  EncoderModelSettings s;
  s.kind = federated_key::kModelKind(c);
  s.path = federated_key::kModelPath(c);
  require_key(!s.encoder() || !s.path.empty(), federated_key::kModelPath.path(),
              std::string("is empty, but model.kind ") + to_string(s.kind) +
                  " needs a Hugging Face folder: config.json and tokenizer.json, and model.safetensors unless the "
                  "model is to be random-init");
  return s;
}

void check_encoder_model(const EncoderModelSettings& s, std::int64_t max_tokens) {
  if (!s.encoder()) return;
  std::string folder;
  try {
    folder = resolve_data_path(s.path);
  } catch (const Error& e) {
    require_key(false, "model.path", std::string("names no folder here: ") + e.what());
  }
  HfEncoderConfig c;
  std::int64_t tokenizer_ids = 0;
  try {
    c = classifier_config(s, folder);
    tokenizer_ids = load_tokenizer((fs::path(folder) / "tokenizer.json").string())->size();
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    require_key(false, "model.path", "'" + s.path + "': " + e.what());
  }
  require_key(tokenizer_ids <= c.vocab_size, "model.path",
              "'" + s.path + "': tokenizer.json assigns " + std::to_string(tokenizer_ids) +
                  " ids, more than config.json's vocab_size " + std::to_string(c.vocab_size));
  const std::int64_t longest =
      c.roberta_positions() ? c.max_position_embeddings - c.pad_token_id - 1 : c.max_position_embeddings;
  require_key(max_tokens <= longest, "data.max_tokens",
              "is " + std::to_string(max_tokens) + ", but the encoder's positions cover " + std::to_string(longest) +
                  " tokens");
}

EncoderSize encoder_size(const EncoderModelSettings& s, bool train_embeddings) {
  EncoderSize size;
  if (!s.encoder()) return size;
  HfEncoderConfig c;
  try {
    c = read_hf_encoder_config(resolve_data_path(s.path));
  } catch (const Error&) {
    return size;  // check_point names the problem
  }
  const double h = static_cast<double>(c.hidden_size), inter = static_cast<double>(c.intermediate_size);
  const double L = static_cast<double>(c.num_hidden_layers);
  const HfEncoderParameterCount count = hf_encoder_classifier_parameter_count(c, 2);  // the two-label head
  const double words = static_cast<double>(count.word_embeddings), other = static_cast<double>(count.other);
  size.all_parameters = words + other;
  size.shared_parameters = other + (train_embeddings ? words : 0.0);
  size.multiply_adds_per_token = L * (4 * h * h + 2 * h * inter);
  size.hidden = c.hidden_size;
  size.layers = c.num_hidden_layers;
  size.intermediate = c.intermediate_size;
  size.heads = c.num_attention_heads;
  return size;
}

EncodedUnits encoder_units(const EncodedUnits& units, const Tokenizer& tokenizer, std::int64_t max_tokens,
                           std::int64_t pad) {
  std::vector<std::vector<std::int64_t>> rows;
  std::int64_t longest = 1;
  for (const std::string& text : units.texts) {
    rows.push_back(unit_ids(tokenizer, text, max_tokens));
    longest = std::max(longest, static_cast<std::int64_t>(rows.back().size()));
  }
  EncodedUnits out;
  out.ids = at::full({static_cast<std::int64_t>(rows.size()), longest}, pad, at::kLong);
  auto ids = out.ids.accessor<std::int64_t, 2>();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t t = 0; t < rows[i].size(); ++t) ids[static_cast<std::int64_t>(i)][static_cast<std::int64_t>(t)] = rows[i][t];
  }
  out.labels = units.labels;
  out.texts = units.texts;
  return out;
}

const EncoderRun& encoder_run(const EncoderModelSettings& s, const PrivateAiData& data, std::int64_t max_tokens,
                              bool train_embeddings, RunCache& cache) {
  std::ostringstream key;
  key << "privateai_encoder|" << &data << '|' << to_string(s.kind) << '|' << s.path << '|' << max_tokens << '|'
      << train_embeddings;
  return cache.get_or_make<EncoderRun>(key.str(), [&] {
    const std::string folder = resolve_data_path(s.path);
    EncoderRun run;
    run.config = classifier_config(s, folder);
    run.train_embeddings = train_embeddings;
    run.max_tokens = max_tokens;
    run.loaded = hf_encoder_source(folder).loaded;  // the folder's weights, or none: random-init
    if (!run.loaded) {
      warn_once("model.path '" + s.path + "' holds no weights (model.safetensors): each federation trains a "
                "random-init " + to_string(s.kind) + " of its config.json, drawn from the run's seed");
    }
    const std::unique_ptr<Tokenizer> tokenizer = load_tokenizer((fs::path(folder) / "tokenizer.json").string());
    const std::int64_t pad = run.config.pad_token_id;
    run.units.candidates = encoder_units(data.candidates, *tokenizer, max_tokens, pad);
    run.units.proxy = encoder_units(data.proxy, *tokenizer, max_tokens, pad);
    run.units.public_split = encoder_units(data.public_split, *tokenizer, max_tokens, pad);
    run.units.test = encoder_units(data.test, *tokenizer, max_tokens, pad);
    run.units.proxy_distance = data.proxy_distance;
    return run;
  });
}

TextClassifier encoder_federation_model(const EncoderRun& run, std::uint64_t seed) {
  EncoderClassifierOptions options;
  options.train_embeddings = run.train_embeddings;
  options.max_tokens = run.max_tokens;
  // The weights share the mapped tensors; the classifier copies them.
  return encoder_text_classifier(hf_encoder_classifier(run, 2, seed), options);
}

}  // namespace embpriv
