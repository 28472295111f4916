#pragma once
// The similarity side of EmbedCluster (ObfusLM, Algorithm EmbedCluster): for each row of a
// vocabulary, its cluster threshold gamma_i = quantile(D_i, beta) over the cosine similarities
// with every row (itself included, numpy's linear interpolation, as in the published code) and
// its most similar other rows, most similar first. Blocked: one [block x V] slab of D at a
// time, never the V x V matrix (GUIDE.md, sec. 6); memory O(V * candidates + block * V).
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace embpriv {

// Rows scaled to unit L2 norm (float32); zero rows stay zero (cosine 0 with everything).
// Throws embpriv::Error on a non-2-D table or a NaN/Inf entry (naming the first bad row).
at::Tensor unit_rows(const at::Tensor& table);

struct SimilarCandidates {
  at::Tensor indices;  // [Q, C] int64: the most similar allowed rows, best first; -1 pads
  at::Tensor scores;   // [Q, C] float32: their cosines; -inf pads
};

struct CandidateOptions {
  std::int64_t candidates = 32;  // C: rows kept per query
  // Rows of D computed at once; 0: as many as keep a slab under 32M entries (128 MB).
  std::int64_t block = 0;
};

// For each query row q (an index into `unit`), the C rows j != q of `unit` with the highest
// cosine among those `allowed` (bool [V]; undefined: all) and >= floor[q] (float [Q];
// undefined: no floor). Ties go to the lower row index. `quantile_beta` in [0, 1] (optional):
// also returns, in *quantiles, the beta-quantile of each query's V cosines over ALL rows.
SimilarCandidates most_similar_rows(const at::Tensor& unit, const at::Tensor& queries,
                                    const at::Tensor& allowed, const at::Tensor& floor,
                                    const CandidateOptions& options, double quantile_beta = -1,
                                    at::Tensor* quantiles = nullptr);

}  // namespace embpriv
