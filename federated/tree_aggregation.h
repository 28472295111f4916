#pragma once
// Tree aggregation of a stream of vectors (Dwork, Naor, Pitassi, Rothblum 2010; Chan, Shi, Song
// 2011), as DP-FTRL uses it (Kairouz, McMahan, Song, Thakkar, Thakurta, Xu, ICML 2021,
// "Practical and private (deep) learning without sampling or shuffling", Alg. 1 and App. B.1):
// the server releases, after round t, the noisy prefix sum
//     S_t = g_1 + ... + g_t + (sum of the noise of the dyadic nodes that cover [1, t]),
// where each node of the binary tree over the rounds (level h, index j: the rounds
// (j-1) 2^h + 1 ... j 2^h) carries its own N(0, sigma^2 I) noise. [1, t] is covered by one node
// per set bit of t, so S_t holds popcount(t) <= floor(log2 t) + 1 noise vectors, and each
// round's vector enters at most floor(log2 T) + 1 nodes (tree_levels(T)): the L2 sensitivity of
// all released nodes to one round's vector of norm <= C is C sqrt(tree_levels(T)).
// A node's noise is drawn from its own seed, so S_t depends only on (seed, t, g_1..g_t).
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace embpriv {

// Levels of the tree over T rounds that can hold a node covering a given round: floor(log2 T) + 1.
std::int64_t tree_levels(std::int64_t rounds);

class TreeAggregator {
 public:
  // Vectors of `dimension` floats; node noise N(0, sigma^2) per coordinate (sigma >= 0).
  TreeAggregator(std::int64_t dimension, double sigma, std::uint64_t seed);

  // Adds round t's vector (t = 1, 2, ... in order) and returns the noisy prefix sum S_t (double).
  at::Tensor add(const at::Tensor& vector);

  std::int64_t rounds() const { return rounds_; }

  // The noise of node (level, index) (index 1-based): the same draw every time it is asked for.
  at::Tensor node_noise(std::int64_t level, std::int64_t index) const;

 private:
  std::int64_t dimension_;
  double sigma_;
  std::uint64_t seed_;
  std::int64_t rounds_ = 0;
  at::Tensor sum_;  // the exact prefix sum, double
};

}  // namespace embpriv
