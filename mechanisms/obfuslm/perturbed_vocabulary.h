#pragma once
// A per-vector mechanism (mechanisms/mechanism.h: Gaussian, Laplace, vMF, ...) in ObfusLM's place:
// every row of the vocabulary perturbed once, then shuffled and sent as ObfusLM sends its rows
// (vocabulary_obfuscator.h). The baseline of ObfusLM's comparison "at matched utility" (ObfusLM
// paper, 效果对比): the server sees one noisy table, as it sees ObfusLM's one obfuscated table.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "mechanisms/mechanism.h"
#include "mechanisms/obfuslm/vocabulary_obfuscator.h"

namespace embpriv {

// Row t of the result is mechanism(embedding[t]) drawn from the stream (seed, "obfuslm.noise"),
// so a row's noise does not depend on the thread count; a zero row is perturbed like any other
// (a direction mechanism refuses it, naming the row). Clusters are singletons, so the
// (k, eps)-anonymity game has no pair to play; server_head is left undefined (the server model
// reads the noisy rows as its embedding and, tied, as its head); synthesis.max_abs_weight is NaN.
ObfuscatedVocabulary perturbed_vocabulary(const at::Tensor& embedding, const Mechanism& mechanism, std::uint64_t seed);

// Clusters of one row each, for V rows.
Clusters singleton_clusters(std::int64_t V);

}  // namespace embpriv
