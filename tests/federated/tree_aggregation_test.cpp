// Tree aggregation for DP-FTRL (Kairouz et al. 2021): the noisy prefix sums are the true sums plus
// the noise of the dyadic nodes covering [1, t]. Checked exactly (which nodes, shared between
// which rounds) and statistically: the noise variance of S_t per coordinate is popcount(t)
// sigma^2 (chi-squared test on 40,000 coordinates, alpha = 1e-3 two-sided, fixed seeds; a node
// noise 5% too large, or one node per level instead of per set bit, fails it).
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <bitset>
#include <boost/math/distributions/chi_squared.hpp>

#include "core/error.h"
#include "federated/tree_aggregation.h"

using namespace embpriv;

TEST_CASE("tree aggregation: levels of the tree over T rounds", "[federated]") {
  CHECK(tree_levels(1) == 1);
  CHECK(tree_levels(2) == 2);
  CHECK(tree_levels(3) == 2);
  CHECK(tree_levels(4) == 3);
  CHECK(tree_levels(10) == 4);
  CHECK(tree_levels(1024) == 11);
  CHECK_THROWS_AS(tree_levels(0), Error);
}

TEST_CASE("tree aggregation: without noise the prefix sums are exact", "[federated]") {
  TreeAggregator tree(3, 0.0, 7);
  const at::Tensor a = at::tensor({1.0, 2.0, 3.0}, at::kDouble), b = at::tensor({-1.0, 0.5, 0.0}, at::kDouble);
  CHECK(at::equal(tree.add(a), a));
  CHECK(at::allclose(tree.add(b), a + b));
  CHECK(at::allclose(tree.add(a), a + a + b));
  CHECK(tree.rounds() == 3);
  CHECK_THROWS_AS(tree.add(at::zeros({2}, at::kDouble)), Error);
  CHECK_THROWS_AS(tree.add(at::tensor({NAN, 0.0, 0.0}, at::kDouble)), Error);
  CHECK_THROWS_AS(TreeAggregator(3, -1.0, 7), Error);
}

TEST_CASE("tree aggregation: S_t holds the noise of the nodes covering [1, t]", "[federated]") {
  const std::int64_t d = 5;
  TreeAggregator tree(d, 0.3, 11);
  const at::Tensor g = at::ones({d}, at::kDouble);
  std::vector<at::Tensor> noise;  // S_t - t g
  for (int t = 1; t <= 7; ++t) noise.push_back(tree.add(g) - static_cast<double>(t) * g);
  auto node = [&](std::int64_t level, std::int64_t index) { return tree.node_noise(level, index); };
  // 1 = [1]; 2 = [1,2]; 3 = [1,2] + [3]; 4 = [1..4]; 5 = [1..4] + [5]; 6 = [1..4] + [5,6];
  // 7 = [1..4] + [5,6] + [7].
  CHECK(at::allclose(noise[0], node(0, 1)));
  CHECK(at::allclose(noise[1], node(1, 1)));
  CHECK(at::allclose(noise[2], node(1, 1) + node(0, 3)));
  CHECK(at::allclose(noise[3], node(2, 1)));
  CHECK(at::allclose(noise[4], node(2, 1) + node(0, 5)));
  CHECK(at::allclose(noise[5], node(2, 1) + node(1, 3)));
  CHECK(at::allclose(noise[6], node(2, 1) + node(1, 3) + node(0, 7)));
  // A node's noise is one fixed draw, and different nodes differ.
  CHECK(at::equal(node(1, 3), node(1, 3)));
  CHECK_FALSE(at::allclose(node(1, 3), node(1, 2)));
  // The same seed gives the same releases.
  TreeAggregator again(d, 0.3, 11);
  for (int t = 1; t <= 7; ++t) CHECK(at::equal(again.add(g) - static_cast<double>(t) * g, noise[static_cast<std::size_t>(t - 1)]));
}

TEST_CASE("tree aggregation: the noise of S_t has variance popcount(t) sigma^2", "[federated][stat]") {
  const std::int64_t d = 40000;
  const double sigma = 0.7, alpha = 1e-3;
  TreeAggregator tree(d, sigma, 2026);
  const boost::math::chi_squared chi2(static_cast<double>(d));
  for (std::int64_t t = 1; t <= 12; ++t) {
    const at::Tensor noise = tree.add(at::zeros({d}, at::kDouble));
    const double nodes = static_cast<double>(std::bitset<64>(static_cast<unsigned long long>(t)).count());
    // sum of squares / (nodes sigma^2) ~ chi^2_d (the mean is known: 0).
    const double statistic = noise.pow(2).sum().item<double>() / (nodes * sigma * sigma);
    INFO("round " << t << ": " << nodes << " nodes, statistic " << statistic);
    CHECK(statistic > boost::math::quantile(chi2, alpha / 2));
    CHECK(statistic < boost::math::quantile(chi2, 1 - alpha / 2));
  }
}
