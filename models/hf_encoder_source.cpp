#include "models/hf_encoder_source.h"

#include <filesystem>

#include "core/error.h"
#include "models/hf_encoder_init.h"

namespace embpriv {

bool hf_encoder_folder_has_weights(const std::string& folder) {
  const std::filesystem::path path(folder);
  return std::filesystem::exists(path / "model.safetensors") ||
         std::filesystem::exists(path / "model.safetensors.index.json");
}

HfEncoderSource hf_encoder_source(const std::string& folder) {
  HfEncoderSource source;
  source.config = read_hf_encoder_config(folder);
  if (hf_encoder_folder_has_weights(folder)) source.loaded = load_hf_encoder(folder);
  return source;
}

HfEncoderSource random_hf_encoder_source(const HfEncoderConfig& config) {
  HfEncoderSource source;
  source.config = config;
  return source;
}

HfEncoderWeights hf_encoder_classifier(const HfEncoderSource& source, std::int64_t num_labels, std::uint64_t seed) {
  const HfEncoderConfig& given = source.loaded ? source.loaded->config : source.config;
  EMBPRIV_CHECK(!given.sequence_classification || given.num_labels == num_labels,
                "the encoder is a sequence classifier of " << given.num_labels << " labels; " << num_labels
                                                           << " are needed (or no head: one is drawn)");
  if (source.loaded) {
    HfEncoderWeights weights = *source.loaded;  // shares the loaded tensors
    if (!weights.config.sequence_classification) add_classification_head(weights, num_labels, seed);
    return weights;
  }
  HfEncoderConfig config = source.config;
  config.sequence_classification = true;
  config.num_labels = num_labels;
  return random_hf_encoder(config, seed);
}

}  // namespace embpriv
