#include "models/language_model.h"

#include <ATen/ATen.h>

#include <filesystem>

#include "core/error.h"
#include "models/hf_decoder_model.h"
#include "models/llama2c_model.h"

namespace embpriv {

std::vector<std::int64_t> LanguageModel::generate_greedy(std::vector<std::int64_t> tokens, std::int64_t new_tokens) const {
  EMBPRIV_CHECK(!tokens.empty(), "generation needs a prompt of at least one token (e.g. <s> = 1)");
  for (std::int64_t n = 0; n < new_tokens && static_cast<std::int64_t>(tokens.size()) < max_sequence_length(); ++n) {
    const at::Tensor logits = forward_ids(at::tensor(tokens, at::kLong));
    tokens.push_back(logits[-1].argmax().item<std::int64_t>());
  }
  return tokens;
}

at::ScalarType compute_dtype_named(const std::string& name) {
  if (name == "float32") return at::kFloat;
  if (name == "bfloat16") return at::kBFloat16;
  throw Error("compute dtype must be float32 or bfloat16, got '" + name + "'");
}

std::unique_ptr<LanguageModel> load_language_model(const std::string& path, c10::Device device, at::ScalarType compute) {
  if (std::filesystem::is_directory(path)) {
    return std::make_unique<HfDecoderModel>(load_hf_checkpoint(path, device), compute);
  }
  EMBPRIV_CHECK(std::filesystem::exists(path), "model '" << path << "' does not exist (a llama2.c .bin or a Hugging Face folder)");
  EMBPRIV_CHECK(compute == at::kFloat, "'" << path << "' is a llama2.c checkpoint, which computes in float32 only "
                                           "(bfloat16 compute is for Hugging Face folders)");
  Llama2cWeights weights = load_llama2c_checkpoint(path);
  if (device != c10::Device(c10::kCPU)) {
    for (at::Tensor* t : {&weights.token_embedding, &weights.rms_attention, &weights.wq, &weights.wk, &weights.wv,
                          &weights.wo, &weights.rms_ffn, &weights.w1, &weights.w2, &weights.w3, &weights.rms_final}) {
      *t = t->to(device);
    }
    weights.classifier = weights.config.shared_classifier ? weights.token_embedding : weights.classifier.to(device);
  }
  return std::make_unique<Llama2cModel>(std::move(weights));
}

}  // namespace embpriv
