#pragma once
// A Hugging Face BERT-family encoder (BERT, RoBERTa, XLM-RoBERTa) as a forward pass from word
// embeddings, following transformers' modeling_bert.py and modeling_roberta.py (eval mode, no
// dropout): embeddings = LayerNorm(word + position + token_type); each layer is post-LayerNorm
// self-attention (additive padding mask) then a GELU (erf) feed-forward network; BERT's pooler
// (dense + tanh on [CLS]) and classifier, RoBERTa's classification head (dense + tanh +
// out_proj on <s>). RoBERTa's positions start after padding_idx (config.json's pad_token_id;
// HfEncoderConfig::position_padding_idx).
//
// The weights stay in their file dtype (F32, F16 or BF16), memory-mapped; each matrix is
// converted to float32 when a forward pass uses it. Every tensor the forward pass reads is looked
// up and its shape checked against config.json when the folder is loaded, so a missing or
// misshapen tensor (a BertForSequenceClassification without its pooler, a vocabulary that
// disagrees with vocab_size) is one Error naming it, before any computation.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <string>
#include <vector>

#include "models/encoder_model.h"
#include "models/hf_encoder_config.h"

namespace embpriv {

// One layer's tensors (HF names under encoder.layer.N.); matrices are [out, in].
struct HfEncoderLayer {
  at::Tensor query, query_bias, key, key_bias, value, value_bias;      // attention.self.*
  at::Tensor attention_out, attention_out_bias;                        // attention.output.dense
  at::Tensor attention_norm, attention_norm_bias;                      // attention.output.LayerNorm
  at::Tensor intermediate, intermediate_bias;                          // intermediate.dense [inter, hidden]
  at::Tensor output, output_bias;                                      // output.dense [hidden, inter]
  at::Tensor output_norm, output_norm_bias;                            // output.LayerNorm
};

struct HfEncoderWeights {
  HfEncoderConfig config;
  EncoderPooling pooling = EncoderPooling::mean;
  bool normalize = false;  // modules.json ends with Normalize: pooled vectors of L2 norm 1 (models/sentence_modules.h)
  at::Tensor word_embeddings, position_embeddings, token_type_embeddings;  // [vocab|positions|types, hidden]
  at::Tensor embeddings_norm, embeddings_norm_bias;
  std::vector<HfEncoderLayer> layers;
  at::Tensor pooler, pooler_bias;  // BERT's pooler.dense; undefined when the checkpoint has none
  // BERT: classifier [labels, hidden]. RoBERTa: classifier.dense [hidden, hidden] as head_dense,
  // classifier.out_proj [labels, hidden] as classifier. Undefined without a classification head.
  at::Tensor head_dense, head_dense_bias, classifier, classifier_bias;
};

// Reads FOLDER/config.json, the safetensors weights (model.safetensors or sharded; the tensor
// names of BertModel/RobertaModel, or with the "bert."/"roberta." prefix of the task models),
// the sentence-transformers modules (modules.json, 1_Pooling/config.json: models/sentence_modules.h)
// where present, and checks tokenizer.json's vocabulary (where present)
// against vocab_size. The weights are read by the decoders' reader (models/hf_checkpoint.h:
// HfSafetensorsFolder), with its checks: a NaN or Inf weight is refused naming the tensor, and so
// is a tensor no lookup reads (an extra layer, a tensor of no known name), except the
// pre-training and masked-LM heads ("cls.", "lm_head."), a classifier config.json does not
// ask for, and the saved position_ids buffers.
HfEncoderWeights load_hf_encoder(const std::string& folder, c10::Device device = c10::kCPU);

// The number of ids a tokenizer.json assigns (largest vocabulary or added-token id + 1), read
// from its JSON alone, so a tokenizer embpriv cannot apply (XLM-RoBERTa's Unigram) is still
// checked against the model.
std::int64_t tokenizer_json_id_count(const std::string& path);

class HfEncoderModel : public EncoderModel {
 public:
  explicit HfEncoderModel(HfEncoderWeights weights);
  const HfEncoderConfig& config() const { return w_.config; }
  const HfEncoderWeights& weights() const { return w_; }

  std::int64_t vocab_size() const override { return config().vocab_size; }
  std::int64_t hidden_size() const override { return config().hidden_size; }
  std::int64_t max_sequence_length() const override;
  at::Tensor embedding_table() const override;
  std::unique_ptr<EncoderModel> with_token_rows(const at::Tensor& embedding) const override;
  at::Tensor embed(const at::Tensor& ids) const override;
  at::Tensor position_ids_from_ids(const at::Tensor& ids) const override;
  at::Tensor hidden_states(const EncoderInput& input) const override;
  at::Tensor pool(const at::Tensor& hidden, const at::Tensor& attention_mask) const override;
  EncoderPooling pooling() const override { return w_.pooling; }
  at::Tensor classify(const at::Tensor& hidden) const override;
  std::int64_t num_labels() const override { return config().sequence_classification ? config().num_labels : 0; }
  void set_pooling(EncoderPooling pooling) { w_.pooling = pooling; }
  void set_normalize(bool normalize) { w_.normalize = normalize; }

 private:
  at::Tensor pool_tokens(const at::Tensor& hidden, const at::Tensor& attention_mask) const;  // before Normalize
  at::Tensor layer(const HfEncoderLayer& L, const at::Tensor& x, const at::Tensor& additive_mask) const;
  HfEncoderWeights w_;
};

}  // namespace embpriv
