#include "experiments/types/obfuslm/server_classifier.h"

#include <ATen/ATen.h>

#include "core/error.h"

namespace embpriv {

HfEncoderWeights server_weights(const HfEncoderWeights& clean, const ObfuscatedVocabulary& v) {
  const std::int64_t V = clean.config.vocab_size;
  EMBPRIV_ASSERT(v.permutation.dim() == 1 && v.permutation.size(0) == V && v.server_embedding.size(0) == V,
                 "the obfuscated vocabulary has " << v.permutation.numel() << " ids, the classifier " << V);
  HfEncoderWeights w = clean;
  w.word_embeddings = v.server_embedding.to(at::kFloat).contiguous();
  // The padding token's identity moves through pi; the position table's padding index stays the
  // clean model's (server_classifier.h): RoBERTa's positions count from it whatever the ids.
  const std::int64_t position_padding = clean.config.position_padding_idx();
  w.config.pad_token_id = v.permutation[clean.config.pad_token_id].item<std::int64_t>();
  w.config.position_padding_override = position_padding;
  return w;
}

std::vector<std::vector<std::int64_t>> shuffled_texts(const ObfuscatedVocabulary& v,
                                                     const std::vector<std::vector<std::int64_t>>& texts) {
  const at::Tensor pi = v.permutation.contiguous();
  const std::int64_t V = pi.numel();
  const std::int64_t* p = pi.data_ptr<std::int64_t>();
  std::vector<std::vector<std::int64_t>> out;
  out.reserve(texts.size());
  for (const std::vector<std::int64_t>& text : texts) {
    std::vector<std::int64_t> ids(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
      EMBPRIV_ASSERT(text[i] >= 0 && text[i] < V, "token id " << text[i] << " outside the vocabulary [0, " << V << ")");
      ids[i] = p[text[i]];
    }
    out.push_back(std::move(ids));
  }
  return out;
}

}  // namespace embpriv
