#pragma once
// Two outputs of a Hugging Face encoder that transformers returns beside the last hidden state
// (BaseModelOutputWithPooling, output_hidden_states=True), for `embpriv embed` and the Python
// module: BERT's pooler output, and the hidden states of a chosen layer.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "models/hf_encoder_model.h"

namespace embpriv {

// BertPooler (modeling_bert.py): tanh(dense(h[:, 0])), [B, hidden] from hidden states
// [B, T, hidden]. Refused for a folder without pooler.dense (the RoBERTa family's task models,
// a BertModel saved with add_pooling_layer=False).
at::Tensor bert_pooler_output(const HfEncoderModel& model, const at::Tensor& hidden);

// The same model with only its first `layers` layers (0 <= layers <= num_hidden_layers), the
// weights shared, not copied: its hidden states are transformers' hidden_states[layers]
// (0: the embeddings' LayerNorm output).
HfEncoderModel first_encoder_layers(const HfEncoderModel& model, std::int64_t layers);

}  // namespace embpriv
