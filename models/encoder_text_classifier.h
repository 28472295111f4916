#pragma once
// PrivateAI's BERT and RoBERTa privacy-identification models (PrivateAI paper, sec. 4.1: "BERT, a
// pretrained 12-layer Transformer of about 110 M parameters", "RoBERTa, 24 layers, about 355 M"):
// a Hugging Face BERT-family encoder with a sequence-classification head of two labels
// (BertForSequenceClassification / RobertaForSequenceClassification, models/hf_encoder_model.h)
// behind TextClassifierNet, so that the federated layer trains, clips, noises, aggregates and
// distils it exactly as it does the Transformer (models/text_classifier.h).
//
// A unit's one logit is the difference of the head's two logits, l1 - l0: sigmoid(l1 - l0) is
// the softmax probability of label 1 (private), and binary cross-entropy on it is the two-label
// cross-entropy the transformers classifier trains with, soft targets (the teachers' answers)
// included. Units are the tokenizer's ids with its special tokens, padded with pad_token_id; the
// attention mask is "not padding".
#include <cstdint>

#include "models/hf_encoder_model.h"
#include "models/text_classifier.h"

namespace embpriv {

struct EncoderClassifierOptions {
  // false: the word-embedding matrix is frozen and not shared (PrivateAI's Transformer keeps its
  // GloVe rows so too: model.train_embeddings); position and token-type rows, the layers, the
  // pooler and the head are trained and shared.
  bool train_embeddings = false;
  std::int64_t max_tokens = 32;  // longest unit, the tokenizer's special tokens included
};

// weights: a sequence classifier of 2 labels (config.sequence_classification, num_labels 2),
// copied to float32 (a mapped F16/BF16 file is never written). Refuses another head size and a
// max_tokens longer than the position table.
TextClassifier encoder_text_classifier(const HfEncoderWeights& weights, const EncoderClassifierOptions& options);

}  // namespace embpriv
