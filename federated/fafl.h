#pragma once
// FAFL: FAFED, "Faster adaptive federated learning" (Wu, Huang, Hu, Huang, AAAI 2023;
// PrivateAI's [43]), Alg. 1, under PrivateAI's local DP. Between two synchronisations each
// client takes q local steps with the momentum-based variance-reduced estimator (STORM, Cutkosky
// & Orabona 2019) preconditioned by ONE adaptive matrix A that the server shares (the paper's
// fix for adaptive FL's divergence):
//   x^0 = x (the global model),  v^0 = grad f_u(x^0; B_0),
//   x^{k+1} = x^k - gamma A^{-1} v^k,
//   v^{k+1} = grad f_u(x^{k+1}; B_{k+1}) + (1 - a) (v^k - grad f_u(x^k; B_{k+1})),
// B_k mini-batches of the client's units; the client releases x^q under eq. (4). The server
// averages the releases into the next x and updates A = diag(sqrt(u) + lambda) from the mean
// direction, Adam-style: u <- rho u + (1 - rho) vbar^2. Assumed (docs/privateai.md,
// "Baselines"): the clients release only their models (each release is DP; their momenta are
// not sent), so the server estimates vbar from the model change, vbar = A (x - mean x^q) /
// (gamma q), which is exact when every v^k is the same; u starts at 0 (A = lambda I in round 1).
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "models/text_classifier.h"

namespace embpriv {

struct FaflOptions {
  std::int64_t steps = 4;      // q: local steps per round
  std::int64_t batch = 32;     // |B_k|
  double learning_rate = 3e-3; // gamma
  double momentum = 0.1;       // a: STORM's weight of the fresh gradient
  double rho = 0.9;            // the adaptive matrix's decay
  double lambda = 1e-2;        // A's floor
};
void check_fafl_options(const FaflOptions& options);

// The client's q steps on its units from the model's current parameters, preconditioned by
// inverse_preconditioner = 1 / (sqrt(u) + lambda) [P]; mini-batches drawn from `seed` (with
// replacement; every unit when options.batch >= the units: then v^k is the full gradient and the
// steps are preconditioned gradient descent). Returns
// the mean loss over the steps.
double fafl_local_steps(TextClassifier& model, const at::Tensor& ids, const at::Tensor& labels,
                        const at::Tensor& inverse_preconditioner, const FaflOptions& options, std::uint64_t seed);

class FaflServer {
 public:
  FaflServer(std::int64_t parameters, const FaflOptions& options);
  at::Tensor inverse_preconditioner() const;  // 1 / (sqrt(u) + lambda), float [P]
  // The next global model from the current one and the releases; updates u.
  at::Tensor step(const at::Tensor& global, const std::vector<at::Tensor>& released);

 private:
  FaflOptions options_;
  at::Tensor second_moment_;  // u, double
};

}  // namespace embpriv
