// The server's aggregation (PrivateAI eq. (5)): FedAvg is the mean of the releases; FedAdam's
// first two steps against the equation worked by hand.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "federated/aggregation.h"

using namespace embpriv;

TEST_CASE("FedAvg averages the releases", "[federated]") {
  ServerAggregator server(Aggregator::fedavg, FedAdamOptions{});
  const at::Tensor global = at::zeros({2}, at::kDouble);
  const at::Tensor next = server.step(global, {at::tensor({1.0, 2.0}, at::kDouble), at::tensor({3.0, -2.0}, at::kDouble)});
  CHECK(next[0].item<double>() == Approx(2.0));
  CHECK(next[1].item<double>() == Approx(0.0));
  CHECK_THROWS_AS(server.step(global, {}), Error);
  CHECK_THROWS_AS(server.step(global, {at::zeros({3}, at::kDouble)}), Error);
}

TEST_CASE("FedAdam follows eq. (5) step by step", "[federated]") {
  FedAdamOptions o;
  o.eta = 0.01;
  ServerAggregator server(Aggregator::fedadam, o);
  const at::Tensor global = at::tensor({1.0, -1.0}, at::kDouble);
  // Round 1: nabla = mean(releases) - global = (0.5, 0.2).
  const at::Tensor first = server.step(global, {at::tensor({1.5, -0.8}, at::kDouble)});
  double G[2] = {0.1 * 0.5, 0.1 * 0.2}, k[2] = {0.001 * 0.25, 0.001 * 0.04};
  const double expected1[2] = {1.0 + 0.01 * G[0] / std::sqrt(k[0] + 1e-8), -1.0 + 0.01 * G[1] / std::sqrt(k[1] + 1e-8)};
  CHECK(first[0].item<double>() == Approx(expected1[0]).epsilon(1e-12));
  CHECK(first[1].item<double>() == Approx(expected1[1]).epsilon(1e-12));
  // Round 2 from the new global: nabla = (-0.1, 0.3) relative to it; moments carry over.
  const at::Tensor second = server.step(first, {first + at::tensor({-0.1, 0.3}, at::kDouble)});
  const double nabla[2] = {-0.1, 0.3};
  for (int i = 0; i < 2; ++i) {
    G[i] = 0.9 * G[i] + 0.1 * nabla[i];
    k[i] = 0.999 * k[i] + 0.001 * nabla[i] * nabla[i];
    CHECK(second[i].item<double>() == Approx(expected1[i] + 0.01 * G[i] / std::sqrt(k[i] + 1e-8)).epsilon(1e-12));
  }
  CHECK_THROWS_AS(ServerAggregator(Aggregator::fedadam, FedAdamOptions{0.0, 1e-8, 0.9, 0.999}), Error);
}
