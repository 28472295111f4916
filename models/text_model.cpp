#include "models/text_model.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "models/hf_checkpoint.h"
#include "models/hf_decoder_model.h"
#include "models/hf_encoder_model.h"
#include "models/hf_encoder_outputs.h"

namespace embpriv {
namespace {

bool is_encoder_type(const std::string& type) { return type == "bert" || type == "roberta" || type == "xlm-roberta"; }

std::string folder_model_type(const std::string& folder) {
  namespace fs = std::filesystem;
  EMBPRIV_CHECK(!fs::is_regular_file(folder) || fs::path(folder).extension() != ".bin",
                folder << " is a llama2.c checkpoint; embed reads Hugging Face folders: convert it with "
                          "embpriv convert llama2c-to-hf");
  EMBPRIV_CHECK(fs::is_directory(folder), "no such model folder: " << folder);
  const std::string path = folder + "/config.json";
  EMBPRIV_CHECK(fs::exists(path), folder << " has no config.json (a Hugging Face model folder needs one)");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(read_model_folder_file(path));
  } catch (const nlohmann::json::exception& e) {
    EMBPRIV_CHECK(false, path << " is not JSON: " << e.what());
  }
  EMBPRIV_CHECK(config.is_object() && config.contains("model_type") && config["model_type"].is_string(),
                path << " has no model_type");
  return config["model_type"].get<std::string>();
}

// Rows of a [B, T] (or [T]) integer tensor as [B, T] int64 on `device`.
at::Tensor batch_of(const at::Tensor& t, const char* what, c10::Device device) {
  EMBPRIV_CHECK(t.defined() && (t.dim() == 1 || t.dim() == 2) && !t.is_floating_point(),
                what << " must be integers [B, T] or [T], got " << (t.defined() ? t.sizes() : at::IntArrayRef{}));
  return (t.dim() == 1 ? t.unsqueeze(0) : t).to(device, at::kLong);
}

// sentence_transformers.models.Pooling over the tokens the mask keeps: the first token (cls),
// sum(h m) / max(sum(m), 1e-9) (mean), or the largest value with padding set to -1e9 (max); the
// formulas of HfEncoderModel's own pooling.
at::Tensor pool_tokens(const at::Tensor& hidden, const at::Tensor& mask, TextPooling pooling) {
  if (pooling == TextPooling::cls) return hidden.select(1, 0);
  const at::Tensor m = (mask.defined() ? mask.to(hidden.device(), hidden.scalar_type())
                                       : at::ones({hidden.size(0), hidden.size(1)}, hidden.options()))
                           .unsqueeze(-1);
  if (pooling == TextPooling::mean) return (hidden * m).sum(1) / m.sum(1).clamp_min(1e-9);
  return hidden.masked_fill(m.eq(0), -1e9).amax(1);
}

}  // namespace

bool is_decoder_folder(const std::string& folder) { return !is_encoder_type(folder_model_type(folder)); }

TextPooling parse_text_pooling(const std::string& name) {
  if (name == "cls") return TextPooling::cls;
  if (name == "mean") return TextPooling::mean;
  if (name == "max") return TextPooling::max;
  if (name == "pooler") return TextPooling::pooler;
  if (name == "modules") return TextPooling::modules;
  EMBPRIV_CHECK(false, "pooling must be cls, mean, max, pooler or modules, got '" << name << "'");
  return TextPooling::mean;
}

const char* text_pooling_name(TextPooling pooling) {
  switch (pooling) {
    case TextPooling::cls: return "cls";
    case TextPooling::mean: return "mean";
    case TextPooling::max: return "max";
    case TextPooling::pooler: return "pooler";
    case TextPooling::modules: return "modules";
  }
  return "?";
}

TextModel::TextModel(const std::string& folder, c10::Device device, at::ScalarType compute)
    : folder_(folder), model_type_(folder_model_type(folder)), device_(device) {
  EMBPRIV_CHECK(compute == at::kFloat || !is_encoder_type(model_type_),
                folder << " is an encoder (" << model_type_ << "), which computes in float32 only "
                       << "(bfloat16 compute is for decoders)");
  EMBPRIV_CHECK(std::filesystem::exists(folder + "/tokenizer.json"),
                folder << " has no tokenizer.json (texts cannot become ids without it)");
  tokenizer_ = load_tokenizer(folder);
  if (is_encoder_type(model_type_)) {
    encoder_ = std::make_unique<HfEncoderModel>(load_hf_encoder(folder, device));
  } else {
    decoder_ = std::make_unique<HfDecoderModel>(load_hf_checkpoint(folder, device), compute);
  }
}

TextModel::~TextModel() = default;
TextModel::TextModel(TextModel&&) noexcept = default;

std::int64_t TextModel::hidden_size() const { return encoder_ ? encoder_->hidden_size() : decoder_->hidden_size(); }
std::int64_t TextModel::num_layers() const {
  return encoder_ ? encoder_->config().num_hidden_layers : decoder_->config().num_hidden_layers;
}
std::int64_t TextModel::vocab_size() const { return encoder_ ? encoder_->vocab_size() : decoder_->vocab_size(); }
std::int64_t TextModel::max_length() const {
  return encoder_ ? encoder_->max_sequence_length() : decoder_->max_sequence_length();
}

std::string TextModel::describe_pooling(TextPooling pooling) const {
  if (pooling != TextPooling::modules || !encoder_) return text_pooling_name(pooling);
  return std::string("modules: ") + encoder_pooling_name(encoder_->pooling()) +
         (encoder_->weights().normalize ? ", then Normalize" : "");
}

std::int64_t TextModel::layer_count(std::int64_t layer) const {
  const std::int64_t layers = num_layers();
  EMBPRIV_CHECK(layer >= -(layers + 1) && layer <= layers,
                "layer must be in [" << -(layers + 1) << ", " << layers << "] (" << layers
                                     << " layers; 0 is the embeddings, -1 the last), got " << layer);
  return layer < 0 ? layers + 1 + layer : layer;
}

std::vector<std::int64_t> TextModel::token_ids(const std::string& text, std::int64_t max_length,
                                               std::int64_t* untruncated) const {
  const std::int64_t limit = max_length > 0 ? max_length : this->max_length();
  EMBPRIV_CHECK(limit <= this->max_length(),
                "max_length must be at most " << this->max_length() << " (the model's positions), got " << limit);
  std::vector<std::int64_t> with = tokenizer_->encode(text, true);
  if (untruncated) *untruncated = static_cast<std::int64_t>(with.size());
  if (static_cast<std::int64_t>(with.size()) <= limit) return with;
  // transformers, truncation=True on one text: the text's own tokens are cut on the right to
  // max_length - num_special_tokens_to_add(), then the template adds the special tokens.
  const std::vector<std::int64_t> own = tokenizer_->encode(text, false);
  const auto specials = static_cast<std::int64_t>(with.size() - own.size());
  EMBPRIV_CHECK(limit > specials, "max_length " << limit << " leaves no room for a text beside the template's "
                                                << specials << " special tokens");
  const auto start = std::search(with.begin(), with.end(), own.begin(), own.end());
  if (own.empty() || start == with.end()) {  // the template changed the text's ids: keep the first ones
    with.resize(static_cast<std::size_t>(limit));
    return with;
  }
  std::vector<std::int64_t> cut(with.begin(), start);
  cut.insert(cut.end(), own.begin(), own.begin() + (limit - specials));
  cut.insert(cut.end(), start + static_cast<std::ptrdiff_t>(own.size()), with.end());
  return cut;
}

TokenizedTexts TextModel::tokenize(const std::vector<std::string>& texts, std::int64_t max_length,
                                   std::int64_t first_index) const {
  TokenizedTexts out;
  std::vector<std::vector<std::int64_t>> rows;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::int64_t before = 0;
    try {
      rows.push_back(token_ids(texts[i], max_length, &before));
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
      throw Error("text " + std::to_string(first_index + static_cast<std::int64_t>(i)) + ": " + e.what());
    }
    EMBPRIV_CHECK(!rows.back().empty(), "text " << first_index + static_cast<std::int64_t>(i) << " has no token (an empty text, and the tokenizer adds no "
                                                    "special token)");
    out.token_counts.push_back(static_cast<std::int64_t>(rows.back().size()));
    out.untruncated_counts.push_back(before);
  }
  const std::int64_t B = static_cast<std::int64_t>(rows.size());
  const std::int64_t T = rows.empty() ? 0 : *std::max_element(out.token_counts.begin(), out.token_counts.end());
  const std::int64_t pad = encoder_ ? encoder_->config().pad_token_id : 0;
  out.ids = at::full({B, T}, pad, at::kLong);
  out.attention_mask = at::zeros({B, T}, at::kLong);
  for (std::int64_t b = 0; b < B; ++b) {
    const auto& row = rows[static_cast<std::size_t>(b)];
    const auto n = static_cast<std::int64_t>(row.size());
    out.ids[b].narrow(0, 0, n).copy_(at::tensor(row, at::kLong));
    out.attention_mask[b].narrow(0, 0, n).fill_(1);
  }
  return out;
}

at::Tensor TextModel::hidden_states(const at::Tensor& ids, const at::Tensor& attention_mask, std::int64_t layer) const {
  const at::Tensor batch = batch_of(ids, "ids", device_);
  const at::Tensor mask = attention_mask.defined() ? batch_of(attention_mask, "attention_mask", device_) : at::Tensor();
  const std::int64_t layers = layer_count(layer);
  at::Tensor hidden;
  if (encoder_) {
    hidden = first_encoder_layers(*encoder_, layers).hidden_states_of_ids(batch, mask);
  } else {
    if (mask.defined()) {
      EMBPRIV_CHECK(mask.sizes() == batch.sizes(), "attention_mask must be " << batch.sizes() << ", got " << mask.sizes());
      // Causal attention: right padding leaves the real tokens as they are; left padding would not.
      EMBPRIV_CHECK(mask.eq(0).logical_or(mask.eq(1)).all().item<bool>() &&
                        (mask.size(1) < 2 || mask.narrow(1, 1, mask.size(1) - 1).le(mask.narrow(1, 0, mask.size(1) - 1))
                                                 .all()
                                                 .item<bool>()),
                    "a decoder's attention_mask must be right padding (each row ones, then zeros)");
    }
    hidden = decoder_->hidden_states_after(decoder_->embed(batch), layers);
  }
  return ids.dim() == 1 ? hidden.squeeze(0) : hidden;
}

at::Tensor TextModel::logits(const at::Tensor& ids) const {
  EMBPRIV_CHECK(decoder_, folder_ << " is an encoder (" << model_type_ << "): logits are a decoder's");
  return decoder_->forward_ids(ids.dim() == 1 ? batch_of(ids, "ids", device_).squeeze(0) : batch_of(ids, "ids", device_));
}

at::Tensor TextModel::pool(const at::Tensor& hidden, const at::Tensor& attention_mask, TextPooling pooling,
                           std::int64_t layer) const {
  EMBPRIV_CHECK(hidden.dim() == 3 && hidden.size(2) == hidden_size(),
                "hidden states must be [B, T, " << hidden_size() << "], got " << hidden.sizes());
  const at::Tensor mask =
      attention_mask.defined() ? batch_of(attention_mask, "attention_mask", hidden.device()) : at::Tensor();
  if (decoder_) {
    EMBPRIV_CHECK(pooling == TextPooling::mean || pooling == TextPooling::max,
                  "a decoder (" << model_type_ << ") pools by mean or max over its tokens, not '"
                                << text_pooling_name(pooling) << "'");
  }
  switch (pooling) {
    case TextPooling::modules: return encoder_->pool(hidden, mask);
    case TextPooling::pooler:
      EMBPRIV_CHECK(layer_count(layer) == num_layers(), "pooling 'pooler' reads the last layer; got layer " << layer);
      return bert_pooler_output(*encoder_, hidden);
    default: return pool_tokens(hidden, mask, pooling);
  }
}

TextEmbeddings TextModel::embed(const std::vector<std::string>& texts, const EmbedOptions& options,
                                const std::function<void(std::int64_t)>& progress) const {
  EMBPRIV_CHECK(options.batch_size >= 1, "batch size must be >= 1, got " << options.batch_size);
  const TextPooling pooling = options.pooling.value_or(default_pooling());
  layer_count(options.layer);  // a wrong layer is refused before any work
  TextEmbeddings out;
  std::vector<at::Tensor> parts;
  const auto n = static_cast<std::int64_t>(texts.size());
  for (std::int64_t first = 0; first < n; first += options.batch_size) {
    const std::int64_t count = std::min(options.batch_size, n - first);
    const std::vector<std::string> batch(texts.begin() + first, texts.begin() + first + count);
    const TokenizedTexts tokens = tokenize(batch, options.max_length, first);
    const at::Tensor hidden = hidden_states(tokens.ids, tokens.attention_mask, options.layer);
    parts.push_back(pool(hidden, tokens.attention_mask, pooling, options.layer));
    out.token_counts.insert(out.token_counts.end(), tokens.token_counts.begin(), tokens.token_counts.end());
    out.untruncated_counts.insert(out.untruncated_counts.end(), tokens.untruncated_counts.begin(),
                                  tokens.untruncated_counts.end());
    if (progress) progress(first + count);
  }
  out.vectors = parts.empty() ? at::empty({0, hidden_size()}, at::TensorOptions().dtype(at::kFloat).device(device_))
                              : at::cat(parts, 0);
  return out;
}

}  // namespace embpriv
