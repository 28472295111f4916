#include "mechanisms/obfuslm/perturbed_vocabulary.h"

#include <ATen/ATen.h>

#include <cmath>
#include <numeric>

#include "core/error.h"

namespace embpriv {

Clusters singleton_clusters(std::int64_t V) {
  Clusters clusters;
  clusters.members.resize(static_cast<std::size_t>(V));
  std::iota(clusters.members.begin(), clusters.members.end(), 0);
  clusters.offsets.resize(static_cast<std::size_t>(V) + 1);
  std::iota(clusters.offsets.begin(), clusters.offsets.end(), 0);
  return clusters;
}

ObfuscatedVocabulary perturbed_vocabulary(const at::Tensor& embedding, const Mechanism& mechanism, std::uint64_t seed) {
  EMBPRIV_CHECK(embedding.dim() == 2 && embedding.size(0) > 0,
                "perturbed vocabulary: the embedding must be a non-empty [V, d] table, got " << embedding.sizes());
  const at::Tensor table = embedding.to(at::kFloat).contiguous();
  // Every row, a zero one too: sent unchanged it would name its token, and a direction mechanism
  // refuses it with the row named (mechanisms/mechanism.h).
  const at::Tensor noisy = mechanism.perturb(table, {derive_seed(seed, 0, "obfuslm.noise"), 0});
  ObfuscatedVocabulary out = shuffled_vocabulary(noisy, at::Tensor(), singleton_clusters(table.size(0)), seed);
  out.synthesis.max_abs_weight = std::nan("");
  return out;
}

}  // namespace embpriv
