#include "models/hf_encoder_tensors.h"

#include <utility>

namespace embpriv {

std::vector<HfEncoderTensor> hf_encoder_tensors(HfEncoderWeights& w) {
  std::vector<HfEncoderTensor> out = {{"embeddings.word_embeddings.weight", &w.word_embeddings, -1},
                                      {"embeddings.position_embeddings.weight", &w.position_embeddings, -1},
                                      {"embeddings.token_type_embeddings.weight", &w.token_type_embeddings, -1},
                                      {"embeddings.LayerNorm.weight", &w.embeddings_norm, -1},
                                      {"embeddings.LayerNorm.bias", &w.embeddings_norm_bias, -1}};
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    HfEncoderLayer& L = w.layers[l];
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    const auto layer = static_cast<std::int64_t>(l);
    for (const auto& [name, t] : std::vector<std::pair<std::string, at::Tensor*>>{
             {"attention.self.query.weight", &L.query}, {"attention.self.query.bias", &L.query_bias},
             {"attention.self.key.weight", &L.key}, {"attention.self.key.bias", &L.key_bias},
             {"attention.self.value.weight", &L.value}, {"attention.self.value.bias", &L.value_bias},
             {"attention.output.dense.weight", &L.attention_out}, {"attention.output.dense.bias", &L.attention_out_bias},
             {"attention.output.LayerNorm.weight", &L.attention_norm}, {"attention.output.LayerNorm.bias", &L.attention_norm_bias},
             {"intermediate.dense.weight", &L.intermediate}, {"intermediate.dense.bias", &L.intermediate_bias},
             {"output.dense.weight", &L.output}, {"output.dense.bias", &L.output_bias},
             {"output.LayerNorm.weight", &L.output_norm}, {"output.LayerNorm.bias", &L.output_norm_bias}}) {
      out.push_back({p + name, t, layer});
    }
  }
  const auto top = static_cast<std::int64_t>(w.layers.size());
  if (w.pooler.defined()) {
    out.push_back({"pooler.dense.weight", &w.pooler, top});
    out.push_back({"pooler.dense.bias", &w.pooler_bias, top});
  }
  const bool bert = w.config.model_type == "bert";
  if (w.head_dense.defined()) {
    out.push_back({"classifier.dense.weight", &w.head_dense, top});
    out.push_back({"classifier.dense.bias", &w.head_dense_bias, top});
  }
  if (w.classifier.defined()) {
    out.push_back({bert ? "classifier.weight" : "classifier.out_proj.weight", &w.classifier, top});
    out.push_back({bert ? "classifier.bias" : "classifier.out_proj.bias", &w.classifier_bias, top});
  }
  return out;
}

bool is_classification_head_tensor(const std::string& name) { return name.rfind("classifier.", 0) == 0; }

}  // namespace embpriv
