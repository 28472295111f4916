#pragma once
// The random initialisation transformers gives a BERT-family model built from its config
// (BertPreTrainedModel._init_weights, RobertaPreTrainedModel._init_weights), so that a classifier
// can be trained from scratch where no pretrained weights are reachable, and a head for a user's
// folder that has none. The standard deviation is the config's initializer_range (0.02 where
// config.json leaves it out, as BertConfig and RobertaConfig do).
#include <cstdint>

#include "models/hf_encoder_model.h"

namespace embpriv {

// _init_weights: every Linear and Embedding weight N(0, initializer_range^2), biases 0, the
// padding row of the word embeddings 0, LayerNorm weight 1 and bias 0; BERT's pooler (as
// BertModel has one); a classification head of config.num_labels outputs when
// config.sequence_classification. Draws come from Rng(seed, 0) in the order of the tensors' names.
HfEncoderWeights random_hf_encoder(const HfEncoderConfig& config, std::uint64_t seed);

// Gives an encoder without a sequence-classification head (a BertModel, RobertaModel or
// ...ForMaskedLM folder) one of num_labels outputs, initialised as random_hf_encoder does (BERT:
// the checkpoint's pooler is kept, a missing one drawn too), so a user's pretrained folder can
// be trained as a classifier. Draws come from Rng(seed, 1).
void add_classification_head(HfEncoderWeights& weights, std::int64_t num_labels, std::uint64_t seed);

}  // namespace embpriv
