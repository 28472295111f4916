#pragma once
// Where an encoder classifier's weights come from, in one place for every experiment type
// (ObfusLM classification's classifier.model, PrivateAI's model.path): a Hugging Face folder's
// own weights, or, where no pretrained weights are reachable, a random initialisation of a
// config (random_hf_encoder, models/hf_encoder_init.h: transformers' _init_weights). A folder
// holding config.json without model.safetensors stands for "random-init of this config", as a
// config built from size keys does; either way the draw is random_hf_encoder's from one seed.
#include <cstdint>
#include <optional>
#include <string>

#include "models/hf_encoder_model.h"

namespace embpriv {

struct HfEncoderSource {
  HfEncoderConfig config;                  // the folder's config.json (or the config given)
  std::optional<HfEncoderWeights> loaded;  // the folder's weights; absent: random-init of `config`
};

// Whether FOLDER holds weights: model.safetensors, or a sharded model.safetensors.index.json.
bool hf_encoder_folder_has_weights(const std::string& folder);

// FOLDER's config.json, and its weights (load_hf_encoder) where it has them.
HfEncoderSource hf_encoder_source(const std::string& folder);

// A random-init encoder of `config` (no folder).
HfEncoderSource random_hf_encoder_source(const HfEncoderConfig& config);

// A sequence classifier of num_labels labels from `source`: the loaded weights (sharing their
// tensors), given a head drawn by add_classification_head(seed) when they have none; or, with
// nothing loaded, random_hf_encoder of the config (made a classifier of num_labels labels when it
// is none) from `seed`. A head of another size is refused.
HfEncoderWeights hf_encoder_classifier(const HfEncoderSource& source, std::int64_t num_labels, std::uint64_t seed);

}  // namespace embpriv
