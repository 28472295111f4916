#pragma once
// What an inversion attack recovers: token recovery at k, and ROUGE-L F1 between a sentence
// and its recovered version (Lin 2004).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace embpriv {

// Share of positions whose true id is among the first k guesses; positions where counted is
// false (special tokens) are left out. truth [N], guesses [N, >= k]. NaN when none is counted.
double top_k_recovery(const at::Tensor& truth, const at::Tensor& guesses, std::int64_t k,
                      const at::Tensor& counted = at::Tensor());

// The length of the longest common subsequence of two token sequences.
std::int64_t longest_common_subsequence(const std::vector<std::int64_t>& a,
                                        const std::vector<std::int64_t>& b);
// ROUGE-L F1 = 2 P R / (P + R), P = LCS / |candidate|, R = LCS / |reference|; 0 when either is
// empty or nothing is shared.
double rouge_l_f1(const std::vector<std::int64_t>& reference, const std::vector<std::int64_t>& candidate);

}  // namespace embpriv
