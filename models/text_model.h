#pragma once
// A Hugging Face model folder with its tokenizer, from texts to vectors: what `embpriv embed`
// and the Python module's load_model share, so that both give the same bits for the same texts,
// batch size and device. The folder holds an encoder (config.json's model_type bert, roberta or
// xlm-roberta: models/hf_encoder_model.h) or a Llama-family decoder (models/hf_decoder_model.h),
// and a tokenizer.json (data/tokenizers/tokenizer.h).
//
// Texts become ids with the special tokens of the tokenizer's template ([CLS] ... [SEP], <s>
// ... </s>, Llama's BOS) and are cut as transformers cuts one text with truncation=True: the
// text's own tokens are cut on the right to max_length minus the special tokens, which are kept.
// A batch is right-padded (the encoder's pad_token_id, with an attention mask). Decoders are
// causal, so right padding leaves the real tokens' hidden states as they are without it.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/tokenizers/tokenizer.h"

namespace embpriv {

class HfEncoderModel;
class HfDecoderModel;

// How one vector per text is made from the token hidden states: sentence-transformers' Pooling
// modes (cls, mean, max: over the tokens the mask keeps), BERT's pooler output (tanh(dense(h[CLS]))),
// or the folder's own sentence-transformers modules (modules.json: its Pooling then Normalize;
// a folder without modules.json pools by 1_Pooling/config.json, else by mean; models/sentence_modules.h).
enum class TextPooling { cls, mean, max, pooler, modules };
TextPooling parse_text_pooling(const std::string& name);  // refuses any other name, listing the five
const char* text_pooling_name(TextPooling pooling);

struct TokenizedTexts {
  at::Tensor ids;             // [B, T] int64, right-padded
  at::Tensor attention_mask;  // [B, T] int64: 1 for a token, 0 for padding
  std::vector<std::int64_t> token_counts;     // tokens kept per text, special tokens included
  std::vector<std::int64_t> untruncated_counts;  // the same before the cut
};

struct EmbedOptions {
  std::optional<TextPooling> pooling;  // unset: modules for encoders, mean for decoders
  std::int64_t layer = -1;             // transformers' hidden_states index; negative counts from the end
  std::int64_t max_length = 0;         // 0: the model's longest input
  std::int64_t batch_size = 32;
};

struct TextEmbeddings {
  at::Tensor vectors;  // [N, hidden] float32 on the model's device
  std::vector<std::int64_t> token_counts, untruncated_counts;
};

// Whether FOLDER's config.json names a decoder (any model_type but bert, roberta, xlm-roberta).
bool is_decoder_folder(const std::string& folder);

class TextModel {
 public:
  // Refuses a folder without config.json or tokenizer.json, an unknown model_type, or a llama2.c
  // .bin (convert it: embpriv convert llama2c-to-hf), naming the file. `compute` bfloat16 runs a
  // decoder in bf16 (models/hf_decoder_model.h); encoders compute in float32 only.
  TextModel(const std::string& folder, c10::Device device = c10::kCPU, at::ScalarType compute = at::kFloat);
  ~TextModel();
  TextModel(TextModel&&) noexcept;

  const std::string& folder() const { return folder_; }
  bool is_decoder() const { return decoder_ != nullptr; }
  const std::string& model_type() const { return model_type_; }
  std::int64_t hidden_size() const;
  std::int64_t num_layers() const;
  std::int64_t vocab_size() const;
  // The longest input the model's positions hold.
  std::int64_t max_length() const;
  c10::Device device() const { return device_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  TextPooling default_pooling() const { return is_decoder() ? TextPooling::mean : TextPooling::modules; }
  // What `pooling` does for this folder in words ("modules: mean, then Normalize").
  std::string describe_pooling(TextPooling pooling) const;

  // One text's ids with the template's special tokens, cut to max_length (0: max_length())
  // as transformers cuts it; `untruncated` gets the count before the cut.
  std::vector<std::int64_t> token_ids(const std::string& text, std::int64_t max_length,
                                      std::int64_t* untruncated = nullptr) const;
  // Texts as one right-padded batch. A text with no token, or invalid UTF-8, is refused naming
  // its index (first_index + its place in `texts`).
  TokenizedTexts tokenize(const std::vector<std::string>& texts, std::int64_t max_length = 0,
                          std::int64_t first_index = 0) const;
  // Token hidden states [B, T, hidden] (transformers' hidden_states[layer]; -1 the last, which for
  // decoders is after the final norm) of ids [B, T] or [T] with an optional mask, on the device.
  // A decoder's mask must be right padding (ones, then zeros).
  at::Tensor hidden_states(const at::Tensor& ids, const at::Tensor& attention_mask = {}, std::int64_t layer = -1) const;
  // A decoder's next-token logits [B, T, vocab] (or [T, vocab]); refused for encoders.
  at::Tensor logits(const at::Tensor& ids) const;
  // One vector per row [B, hidden] from hidden states [B, T, hidden] and the mask (undefined:
  // all tokens). `layer` is the hidden states' layer: BERT's pooler reads the last one only.
  at::Tensor pool(const at::Tensor& hidden, const at::Tensor& attention_mask, TextPooling pooling,
                  std::int64_t layer = -1) const;
  // Every text's vector, batch_size texts at a time in the given order; `progress` is told the
  // number of texts done after each batch.
  TextEmbeddings embed(const std::vector<std::string>& texts, const EmbedOptions& options,
                       const std::function<void(std::int64_t)>& progress = {}) const;

 private:
  std::int64_t layer_count(std::int64_t layer) const;  // the hidden_states index as a count of layers
  std::string folder_, model_type_;
  c10::Device device_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<HfEncoderModel> encoder_;
  std::unique_ptr<HfDecoderModel> decoder_;
};

}  // namespace embpriv
