#pragma once
// The server's aggregation of the clients' released models (PrivateAI paper, eq. (5)):
//   FedAvg (McMahan et al. 2017): Theta^d = mean of the releases;
//   FedAdam (Reddi et al. 2021) as PrivateAI writes it, with the pseudo-gradient
//     nabla_n = mean_u(released_u) - Theta_n,
//     G_n = tau1 G_{n-1} + (1 - tau1) nabla_n,  kappa_n = tau2 kappa_{n-1} + (1 - tau2) nabla_n^2,
//     Theta^d = Theta_n + eta G_n / sqrt(kappa_n + tau0)
//   (no bias correction; tau0 inside the root, as in eq. (5)); G_0 = kappa_0 = 0.
#include <ATen/core/Tensor.h>

#include <vector>

namespace embpriv {

enum class Aggregator { fedavg, fedadam };

// The sum and the mean of the releases (each [P], the global model's shape) in float64; `who`
// names the protocol in their errors (no release, a release of another shape).
at::Tensor sum_of_releases(const at::Tensor& global, const std::vector<at::Tensor>& released, const char* who);
at::Tensor mean_of_releases(const at::Tensor& global, const std::vector<at::Tensor>& released, const char* who);
const char* to_string(Aggregator aggregator);

struct FedAdamOptions {
  double eta = 1e-4;  // PrivateAI's knowledge update rate for its Transformer
  double tau0 = 1e-8, tau1 = 0.9, tau2 = 0.999;
};

class ServerAggregator {
 public:
  ServerAggregator(Aggregator aggregator, const FedAdamOptions& options);
  // The aggregated model Theta^d from the global model [P] and the releases (each [P]).
  at::Tensor step(const at::Tensor& global, const std::vector<at::Tensor>& released);

 private:
  Aggregator aggregator_;
  FedAdamOptions options_;
  at::Tensor first_moment_, second_moment_;  // G, kappa (double)
};

}  // namespace embpriv
