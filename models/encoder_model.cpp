#include "models/encoder_model.h"

#include <ATen/ATen.h>

#include "core/error.h"
#include "models/hf_encoder_model.h"

namespace embpriv {

at::Tensor EncoderModel::hidden_states_of_ids(const at::Tensor& ids, const at::Tensor& attention_mask) const {
  EncoderInput input;
  input.embeddings = embed(ids);
  input.attention_mask = attention_mask;
  input.position_ids = position_ids_from_ids(ids);
  if (ids.dim() == 1) input.position_ids = input.position_ids.squeeze(0);
  return hidden_states(input);
}

std::unique_ptr<EncoderModel> load_encoder_model(const std::string& folder, c10::Device device) {
  return std::make_unique<HfEncoderModel>(load_hf_encoder(folder, device));
}

}  // namespace embpriv
