#pragma once
// DP-FTRL in federated learning (Kairouz, McMahan, Song, Thakkar, Thakurta, Xu, ICML 2021,
// "Practical and private (deep) learning without sampling or shuffling", Alg. 1, and its
// federated form, Sec. 5.3): a trusted server adds the noise, not the clients. Round t:
//   each sampled client u sends its clipped update  g_t^u = h(Theta_t^u - Theta_t; C)  (eq. (4)'s h);
//   the server adds g_t = sum_u g_t^u to the tree (federated/tree_aggregation.h) and gets the
//   noisy prefix sum S_t of g_1 .. g_t;
//   FTRL with the regulariser (lambda / 2) ||Theta - Theta_0||^2 on the linearised losses
//   -<S_t / m, Theta> gives  Theta_{t+1} = Theta_0 + eta S_t / m,  eta = 1 / lambda the server's
//   learning rate and m the clients per round (no momentum: DP-FTRL, not DP-FTRLM).
// Privacy (user level, one client's data replaced): each of its clipped updates moves by at most
// 2C, so a tree node covering n of its rounds moves by at most 2C n and the whole release (every
// node, independent N(0, sigma^2 I) each) is one Gaussian mechanism of L2 sensitivity
//   Delta2 = 2C sqrt(max_u sum_nodes n_{u,node}^2)
// over the run's participation schedule (public: drawn from the run's seed). With one
// participation per client this is at most 2C sqrt(floor(log2 T) + 1) (replace-one): a round lies
// in one released node per level, and the levels with a node inside [1, T] are 0 .. floor(log2 T)
// (Kairouz et al. write ceil(log2 T) + 1, the same for T a power of two and one more level
// otherwise, for a tree padded to the next power of two).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "federated/tree_aggregation.h"

namespace embpriv {

// schedule[t] = the clients that take part in round t + 1 (ids in [0, clients)); C = clip_norm.
double dp_ftrl_sensitivity(const std::vector<std::vector<std::int64_t>>& schedule, std::int64_t clients,
                           double clip_norm);

class DpFtrlServer {
 public:
  // initial: Theta_0 [P]; sigma: each tree node's noise; eta: the server's learning rate;
  // clients_per_round: m.
  DpFtrlServer(const at::Tensor& initial, double sigma, double eta, std::int64_t clients_per_round,
               std::uint64_t seed);
  // The next model Theta_{t+1} from round t's clipped updates (each [P]).
  at::Tensor step(const std::vector<at::Tensor>& clipped_updates);

 private:
  at::Tensor initial_;  // double
  double eta_;
  std::int64_t clients_per_round_;
  TreeAggregator tree_;
};

}  // namespace embpriv
