// DP-FTRL (Kairouz et al. 2021): the L2 sensitivity of the whole tree from a participation
// schedule (hand-counted nodes), the server's update Theta_0 + eta S_t / m against the tree's own
// noisy prefix sums, and, end to end on real e-mail units, DP-FTRL without noise at eta = 1 is
// FedAvg round for round.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "federated/dp_ftrl.h"
#include "federated/federated_training.h"
#include "tests/federated/privateai_test_data.h"

using namespace embpriv;

TEST_CASE("DP-FTRL: the tree's sensitivity counts a client's rounds in every released node", "[federated]") {
  const double C = 0.5;
  // T = 8, every client once, in round 1: nodes [1], [1,2], [1..4], [1..8] each hold it once:
  // Kairouz et al.'s sqrt(ceil(log2 T) + 1), times 2C (replace-one).
  CHECK(dp_ftrl_sensitivity({{0, 1}, {}, {}, {}, {}, {}, {}, {}}, 2, C) == Approx(2 * C * 2));
  // T = 4, one client in every round: level 0: 4 nodes of 1; level 1: 2 nodes of 2; level 2: 1 of 4.
  CHECK(dp_ftrl_sensitivity({{0}, {0}, {0}, {0}}, 1, C) == Approx(2 * C * std::sqrt(4 + 8 + 16)));
  // T = 3, rounds 1 and 3: [1] 1, [2] 0, [3] 1, [1,2] 1 (the node [1..4] is never released).
  CHECK(dp_ftrl_sensitivity({{0}, {1}, {0}}, 2, C) == Approx(2 * C * std::sqrt(3.0)));
  // The worst client sets it: client 1 in rounds 1 and 2 shares the node [1,2]: 1 + 1 + 4.
  CHECK(dp_ftrl_sensitivity({{0, 1}, {1}, {0}}, 2, C) == Approx(2 * C * std::sqrt(6.0)));
  CHECK_THROWS_AS(dp_ftrl_sensitivity({{2}}, 2, C), Error);
  CHECK_THROWS_AS(dp_ftrl_sensitivity({}, 2, C), Error);
  CHECK_THROWS_AS(dp_ftrl_sensitivity({{0}}, 1, 0.0), Error);
}

TEST_CASE("DP-FTRL: Theta_{t+1} = Theta_0 + eta S_t / m with the tree's noisy prefix sums", "[federated]") {
  const std::int64_t P = 6, m = 3;
  const double sigma = 0.2, eta = 0.7;
  const at::Tensor theta0 = at::linspace(-1, 1, P, at::kDouble);
  DpFtrlServer server(theta0, sigma, eta, m, 99);
  TreeAggregator reference(P, sigma, 99);
  for (int t = 1; t <= 5; ++t) {
    std::vector<at::Tensor> updates;
    at::Tensor sum = at::zeros({P}, at::kDouble);
    for (int u = 0; u < m; ++u) {
      updates.push_back(at::full({P}, 0.01 * (t + u), at::kDouble));
      sum += updates.back();
    }
    const at::Tensor expected = theta0 + eta / m * reference.add(sum);
    CHECK(at::allclose(server.step(updates), expected, 0, 1e-12));
  }
  // Without noise and eta = 1 the model moves by the mean update, as FedAvg.
  DpFtrlServer plain(theta0, 0.0, 1.0, 2, 1);
  const at::Tensor a = at::full({P}, 0.1, at::kDouble), b = at::full({P}, 0.3, at::kDouble);
  CHECK(at::allclose(plain.step({a, b}), theta0 + 0.2));
  CHECK(at::allclose(plain.step({a, a}), theta0 + 0.3));
  CHECK_THROWS_AS(plain.step({}), Error);
  CHECK_THROWS_AS(DpFtrlServer(theta0, 0.1, 0.0, 2, 1), Error);
}

TEST_CASE("DP-FTRL without noise at eta = 1 trains exactly as FedAvg", "[federated][privateai]") {
  const PrivateAiData& data = small_privateai_data();
  std::vector<LabelledUnits> clients;
  const std::int64_t n = data.candidates.ids.size(0) / 4;
  for (std::int64_t u = 0; u < 4; ++u) {
    clients.push_back({data.candidates.ids.narrow(0, u * n, n), data.candidates.labels.narrow(0, u * n, n)});
  }
  FederatedOptions o;
  o.rounds = 3;
  o.method = FederatedMethod::fedavg;
  o.local.learning_rate = 1e-3;
  o.dp.enabled = false;
  o.distill.every = 0;  // FedAvg and DP-FTRL do not distil (the library's default, 1, needs a proxy set)
  o.seed = 5;
  const auto train = [&](const FederatedOptions& options) {
    TextClassifier model(data.embeddings, TextClassifierOptions{});
    train_federated(model, clients, nullptr, options, nullptr);
    return model.shared_parameters();
  };
  FederatedOptions ftrl = o;
  ftrl.method = FederatedMethod::dp_ftrl;
  ftrl.dp.clip = ClipTarget::update;
  ftrl.dp.budget = EpsilonBudget::run;
  // One round: the same model up to float rounding (measured 4.7e-10). Over three rounds the
  // clients' Adam amplifies that rounding (measured 3.1e-5 on parameters of size ~1).
  o.rounds = ftrl.rounds = 1;
  CHECK(at::allclose(train(ftrl), train(o), 0, 1e-8));
  o.rounds = ftrl.rounds = 3;
  CHECK(at::allclose(train(ftrl), train(o), 0, 2e-4));
  // With DP, the noise per node is calibrated on the schedule's sensitivity.
  ftrl.dp.enabled = true;
  ftrl.dp.epsilon = 2;
  ftrl.dp.delta = 1e-3;
  ftrl.dp.calibration = NoiseCalibration::analytic;
  const double sensitivity = dp_ftrl_sensitivity(participation_schedule(4, ftrl), 4, ftrl.dp.clip_norm);
  CHECK(sensitivity >= 2 * ftrl.dp.clip_norm * std::sqrt(3.0));  // 9 places for 4 clients: one takes part twice
  CHECK(federated_noise(ftrl, 4).sigma == Approx(analytic_gaussian_sigma(2, 1e-3, sensitivity)));
  CHECK(federated_noise(ftrl, 4).sensitivity == sensitivity);
  CHECK(federated_noise(ftrl, 4).releases == 1);  // the tree is one Gaussian mechanism for the run
}
