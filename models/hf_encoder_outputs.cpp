#include "models/hf_encoder_outputs.h"

#include <ATen/ATen.h>

#include "core/error.h"
#include "models/float32_linear.h"

namespace embpriv {

at::Tensor bert_pooler_output(const HfEncoderModel& model, const at::Tensor& hidden) {
  const HfEncoderWeights& w = model.weights();
  EMBPRIV_CHECK(w.pooler.defined(), "pooling 'pooler' needs BERT's pooler (pooler.dense.weight), which this "
                                        << model.config().model_type
                                        << " folder has not; choose cls, mean, max or modules");
  EMBPRIV_CHECK(hidden.dim() == 3 && hidden.size(2) == model.hidden_size(),
                "hidden states must be [B, T, " << model.hidden_size() << "], got " << hidden.sizes());
  const at::Tensor first = hidden.select(1, 0);
  return at::tanh(float32_linear(first, w.pooler, w.pooler_bias));
}

HfEncoderModel first_encoder_layers(const HfEncoderModel& model, std::int64_t layers) {
  const auto count = static_cast<std::int64_t>(model.weights().layers.size());
  EMBPRIV_CHECK(layers >= 0 && layers <= count, "layer must be in [0, " << count << "], got " << layers);
  HfEncoderWeights weights = model.weights();
  weights.layers.resize(static_cast<std::size_t>(layers));
  return HfEncoderModel(std::move(weights));
}

}  // namespace embpriv
