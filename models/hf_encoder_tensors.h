#pragma once
// The tensors of a Hugging Face BERT-family encoder (models/hf_encoder_model.h) in one fixed
// order, with their transformers names: the one list that encoder training (the tensors it
// trains, the names save_hf_encoder writes, the order random_hf_encoder draws in) and PrivateAI's
// encoder classifier (the layout of the parameters clients share, models/encoder_text_classifier.h)
// both walk, so the two cannot disagree on which tensors a model has.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/hf_encoder_model.h"

namespace embpriv {

// One tensor of the weights: its name in BertModel/RobertaModel (without the task model's
// "bert."/"roberta." prefix; the head's names are "classifier.*"), the tensor in the weights, and
// its layer: -1 for the embeddings, 0 .. num_layers-1 for encoder.layer.N, num_layers for the
// pooler and the classification head.
struct HfEncoderTensor {
  std::string name;
  at::Tensor* tensor;
  std::int64_t layer;
};

// Every tensor in this order: the embeddings (word, position, token type, LayerNorm weight and
// bias), each layer in order (query, key, value, attention output, its LayerNorm, intermediate,
// output, its LayerNorm; each weight before its bias), BERT's pooler where defined, RoBERTa's
// classifier.dense where defined, the classifier (BERT: classifier, RoBERTa:
// classifier.out_proj) where defined. The pointers are into `weights`.
std::vector<HfEncoderTensor> hf_encoder_tensors(HfEncoderWeights& weights);

// Whether a name is one of the sequence-classification head's ("classifier." prefix), which the
// task models save without the encoder's prefix.
bool is_classification_head_tensor(const std::string& name);

}  // namespace embpriv
