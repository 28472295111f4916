#pragma once
// Training a BERT-family sequence classifier (models/hf_encoder_model.h) with Adam (Kingma & Ba
// 2015): every layer, or only the top `train_layers` layers and the head, on token-id texts and
// their labels (from a user's folder, or from scratch from models/hf_encoder_init.h's random
// initialisation where no pretrained weights are reachable). save_hf_encoder writes the result as
// a Hugging Face folder that load_hf_encoder reads back.
#include <cstdint>
#include <string>
#include <vector>

#include "models/hf_encoder_model.h"

namespace embpriv {

struct EncoderTrainingOptions {
  std::int64_t epochs = 3, batch_size = 32;
  double learning_rate = 1e-3;       // Adam's step size (betas 0.9, 0.999, eps 1e-8 as torch.optim.Adam)
  std::int64_t train_layers = -1;    // -1: all parameters; k: the top k layers, BERT's pooler and the head
  std::int64_t max_length = 128;     // texts are cut to this many tokens (keeping the first)
  std::uint64_t seed = 1;            // the order of the examples in each epoch: Rng(seed, epoch)
};

// Trains `weights` in place (they become float32 copies; the file's mapped tensors are not
// written). texts are token ids (the tokenizer's template included), labels in [0, num_labels).
// Returns the mean training loss of each epoch. No dropout is applied (eval-mode forward).
// The same options and weights give the same bits at every thread count (on the CPU): while a
// gradient is taken the model's layer norms are the row-ordered ones of
// models/transformer_encoder.h (HfEncoderModel, models/hf_encoder_model.cpp).
std::vector<double> train_encoder_classifier(HfEncoderWeights& weights, const std::vector<std::vector<std::int64_t>>& texts,
                                             const std::vector<std::int64_t>& labels, const EncoderTrainingOptions& options);

// The predicted label of each text (argmax of the head's logits), in batches of batch_size.
std::vector<std::int64_t> predict_encoder_labels(const HfEncoderModel& model, const std::vector<std::vector<std::int64_t>>& texts,
                                                 std::int64_t batch_size = 64, std::int64_t max_length = 128);

// Writes FOLDER/config.json (the keys hf_encoder_config.h reads, architectures naming the
// classifier when there is one) and FOLDER/model.safetensors (float32, BertModel/RobertaModel
// names under the task model's prefix when it classifies), and the sentence-transformers modules
// of its pooling and normalisation (modules.json, 1_Pooling/config.json: write_sentence_modules).
void save_hf_encoder(const HfEncoderWeights& weights, const std::string& folder);

}  // namespace embpriv
