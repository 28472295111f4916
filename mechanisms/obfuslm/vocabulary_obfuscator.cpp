#include "mechanisms/obfuslm/vocabulary_obfuscator.h"

#include <ATen/ATen.h>

#include <numeric>
#include <utility>
#include <vector>

#include "core/error.h"

namespace embpriv {

at::Tensor random_permutation(std::int64_t V, std::uint64_t seed) {
  std::vector<std::int64_t> pi(static_cast<std::size_t>(V));
  std::iota(pi.begin(), pi.end(), 0);
  Rng rng(seed, 0);
  shuffle(pi, rng);
  return at::tensor(pi, at::kLong);
}

EmbedClusterOptions cluster_options(const ObfuscationOptions& options, std::uint64_t seed) {
  EmbedClusterOptions c;
  c.k = options.k;
  c.threshold = options.threshold;
  c.order = options.order;
  c.seed = derive_seed(seed, 0, "obfuslm.cluster");
  c.candidates = options.candidates;
  c.block = options.block;
  return c;
}

ObfuscatedVocabulary shuffled_vocabulary(const at::Tensor& embedding, const at::Tensor& head, Clusters clusters,
                                         std::uint64_t seed) {
  const std::int64_t V = embedding.size(0);
  ObfuscatedVocabulary out;
  out.clusters = std::move(clusters);
  out.obfuscated_embedding = embedding;
  out.permutation = random_permutation(V, derive_seed(seed, 0, "obfuslm.shuffle"));
  out.inverse = at::empty_like(out.permutation);
  out.inverse.index_copy_(0, out.permutation, at::arange(V, at::kLong));
  // Row pi[t] of the server's matrix is token t's obfuscated row.
  out.server_embedding = at::empty_like(embedding);
  out.server_embedding.index_copy_(0, out.permutation, embedding);
  if (head.defined()) {
    out.server_head = at::empty_like(head);
    out.server_head.index_copy_(0, out.permutation, head);
  }
  return out;
}

ObfuscatedVocabulary obfuscate_vocabulary(const at::Tensor& embedding, const at::Tensor& head,
                                          const Clusters& clusters, const ObfuscationOptions& options,
                                          std::uint64_t seed) {
  const SynthesisedRows rows =
      weight_synth(embedding, head, clusters, {options.epsilon, options.normalization,
                                               derive_seed(seed, 0, "obfuslm.weight_synth")});
  ObfuscatedVocabulary out = shuffled_vocabulary(rows.embedding, rows.head, clusters, seed);
  out.synthesis = rows.stats;
  return out;
}

ObfuscatedVocabulary obfuscate_vocabulary(const at::Tensor& embedding, const at::Tensor& head,
                                          const ObfuscationOptions& options, std::uint64_t seed) {
  EmbedClusterStats stats;
  const Clusters clusters = embed_cluster(embedding, cluster_options(options, seed), &stats);
  ObfuscatedVocabulary out = obfuscate_vocabulary(embedding, head, clusters, options, seed);
  out.clustering = stats;
  return out;
}

namespace {

// mapping[ids], in the shape of ids, after checking every id is in range.
at::Tensor map_ids(const at::Tensor& mapping, const at::Tensor& ids, const char* what) {
  const std::int64_t V = mapping.size(0);
  EMBPRIV_CHECK(ids.numel() == 0 || (ids.min().item<std::int64_t>() >= 0 && ids.max().item<std::int64_t>() < V),
                "obfuslm " << what << " must be in [0, " << V << ")");
  return mapping.index_select(0, ids.reshape({-1}).to(at::kLong)).reshape(ids.sizes());
}

}  // namespace

at::Tensor ObfuscatedVocabulary::encode(const at::Tensor& token_ids) const {
  return map_ids(permutation, token_ids, "encode: token ids");
}

at::Tensor ObfuscatedVocabulary::decode(const at::Tensor& shuffled_ids) const {
  return map_ids(inverse, shuffled_ids, "decode: shuffled ids");
}

at::Tensor ObfuscatedVocabulary::unshuffle_scores(const at::Tensor& shuffled_scores) const {
  EMBPRIV_CHECK(shuffled_scores.size(-1) == permutation.size(0),
                "obfuslm: scores must end in the vocabulary size " << permutation.size(0));
  // Token t's score is at shuffled position pi[t].
  return shuffled_scores.index_select(-1, permutation);
}

}  // namespace embpriv
