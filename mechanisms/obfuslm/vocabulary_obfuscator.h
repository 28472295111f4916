#pragma once
// ObfusLM's vocabulary obfuscation and its client/server flow (GUIDE.md, sec. 5):
//   client: shuffle the vocabulary with a secret permutation pi; EmbedCluster + WeightSynth the
//           embedding (and head) rows; send the obfuscated rows in shuffled order;
//   server: runs the model with those rows on shuffled ids, returns shuffled ids or scores;
//   client: encode(text ids) = pi[ids], decode(shuffled ids) = pi^-1[ids].
// The permutation and the clusters never leave the client.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "mechanisms/obfuslm/embed_cluster.h"
#include "mechanisms/obfuslm/weight_synth.h"

namespace embpriv {

struct ObfuscationOptions {
  std::int64_t k = 10;         // cluster size
  double epsilon = 1.0;        // WeightSynth budget
  double threshold = 0.5;      // EmbedCluster's beta
  WeightNormalization normalization = WeightNormalization::sum;
  ClusterOrder order = ClusterOrder::index;
  std::int64_t candidates = 0, block = 0;  // EmbedCluster tuning (0: automatic)
};

class ObfuscatedVocabulary {
 public:
  // What the server receives: obfuscated rows in shuffled order (row pi[t] is token t's).
  at::Tensor server_embedding;
  at::Tensor server_head;  // undefined when the model's head is its embedding matrix
  // The client's secret and what it keeps for measurement.
  at::Tensor permutation;            // [V] int64: token t -> shuffled id pi[t]
  at::Tensor inverse;                // [V] int64: shuffled id -> token
  at::Tensor obfuscated_embedding;   // [V, d] the obfuscated rows in the ORIGINAL order
  Clusters clusters;
  SynthesisStats synthesis;
  EmbedClusterStats clustering;

  at::Tensor encode(const at::Tensor& token_ids) const;     // client: text ids -> shuffled ids
  at::Tensor decode(const at::Tensor& shuffled_ids) const;  // client: shuffled ids -> text ids
  // Server scores over shuffled ids ([..., V]) in the original token order ([..., V]).
  at::Tensor unshuffle_scores(const at::Tensor& shuffled_scores) const;
};

// A uniformly random permutation of [0, V) (Fisher-Yates) from Rng(seed, 0).
at::Tensor random_permutation(std::int64_t V, std::uint64_t seed);

// The client/server flow around rows already obfuscated ([V, d], and the head's rows or an
// undefined tensor): the secret permutation drawn from `seed` ("obfuslm.shuffle"), the server's
// rows in shuffled order. obfuscate_vocabulary and perturbed_vocabulary.h build on it.
ObfuscatedVocabulary shuffled_vocabulary(const at::Tensor& embedding, const at::Tensor& head, Clusters clusters,
                                         std::uint64_t seed);

// Clusters are passed in so a sweep over eps reuses them (they depend on k, threshold, order).
ObfuscatedVocabulary obfuscate_vocabulary(const at::Tensor& embedding, const at::Tensor& head,
                                          const Clusters& clusters, const ObfuscationOptions& options,
                                          std::uint64_t seed);
// The same, clustering first (EmbedCluster with the options' k, threshold and order).
ObfuscatedVocabulary obfuscate_vocabulary(const at::Tensor& embedding, const at::Tensor& head,
                                          const ObfuscationOptions& options, std::uint64_t seed);

EmbedClusterOptions cluster_options(const ObfuscationOptions& options, std::uint64_t seed);

}  // namespace embpriv
