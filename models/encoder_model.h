#pragma once
// What every experiment needs of a text encoder (BERT, RoBERTa), whichever folder it came from,
// in the shape of models/language_model.h's decoders: the forward pass starts from the WORD
// EMBEDDINGS of the tokens (the rows an ObfusLM client obfuscates, the table an attacker knows),
// and gives token hidden states, one pooled vector per text, and a classifier's logits.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>

#include "models/hf_encoder_config.h"

namespace embpriv {

// One batch of texts: word embeddings [B, T, hidden] (or [T, hidden]) and optionally
// attention_mask [B, T] (1 for a token, 0 for padding; absent: all tokens), token_type_ids
// [B, T] (absent: zeros) and position_ids [B, T] (absent: the model's rule, EncoderModel::
// position_ids_from_ids for ids, consecutive positions for embeddings).
struct EncoderInput {
  at::Tensor embeddings, attention_mask, token_type_ids, position_ids;
};

class EncoderModel {
 public:
  virtual ~EncoderModel() = default;
  virtual std::int64_t vocab_size() const = 0;
  virtual std::int64_t hidden_size() const = 0;
  // The longest input the position table covers.
  virtual std::int64_t max_sequence_length() const = 0;
  // The word-embedding matrix [vocab, hidden] as float32.
  virtual at::Tensor embedding_table() const = 0;
  // The same model with other word-embedding rows [vocab, hidden] (ObfusLM's server model).
  virtual std::unique_ptr<EncoderModel> with_token_rows(const at::Tensor& embedding) const = 0;
  // Word embeddings of token ids [T] or [B, T]: [.., hidden] float32 (no position or type rows).
  virtual at::Tensor embed(const at::Tensor& ids) const = 0;
  // The positions transformers gives token ids [B, T] (RoBERTa: padding tokens, pad_token_id,
  // keep padding_idx, the others count from padding_idx + 1; HfEncoderConfig::position_padding_idx).
  virtual at::Tensor position_ids_from_ids(const at::Tensor& ids) const = 0;
  // The last layer's token hidden states [B, T, hidden] (or [T, hidden]), float32.
  virtual at::Tensor hidden_states(const EncoderInput& input) const = 0;
  // One vector per text [B, hidden] from hidden states [B, T, hidden] and the attention mask
  // (undefined: all tokens), by pooling(), then divided by its L2 norm where the folder's
  // sentence-transformers modules end with Normalize (models/sentence_modules.h).
  virtual at::Tensor pool(const at::Tensor& hidden, const at::Tensor& attention_mask) const = 0;
  virtual EncoderPooling pooling() const = 0;
  // The sequence-classification head's logits [B, num_labels] from hidden states [B, T, hidden];
  // refused when the checkpoint has no head (num_labels() == 0).
  virtual at::Tensor classify(const at::Tensor& hidden) const = 0;
  virtual std::int64_t num_labels() const = 0;

  // From token ids [B, T] (or [T]) and an optional attention mask: hidden states, positions by
  // position_ids_from_ids.
  at::Tensor hidden_states_of_ids(const at::Tensor& ids, const at::Tensor& attention_mask = at::Tensor()) const;
};

// A Hugging Face encoder folder (models/hf_encoder_model.h), weights placed on `device`.
std::unique_ptr<EncoderModel> load_encoder_model(const std::string& folder, c10::Device device = c10::kCPU);

}  // namespace embpriv
