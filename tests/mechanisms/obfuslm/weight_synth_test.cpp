// WeightSynth (mechanisms/obfuslm/weight_synth.h): the Laplace noise has the published scale
// (KS test, alpha = 1e-6, with a broken scale that must be rejected), both normalisations do
// what docs/errata.md says, and the synthesised rows are W E, whatever the thread count.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <numeric>

#include "core/error.h"
#include "mechanisms/obfuslm/weight_synth.h"
#include "metrics/distributions.h"
#include "metrics/ks_test.h"
#include "tests/catch.h"

namespace {

constexpr double kAlpha = 1e-6;

embpriv::Clusters clusters_of_size(std::int64_t V, std::int64_t m) {
  embpriv::Clusters c;
  c.offsets.push_back(0);
  for (std::int64_t i = 0; i < V; ++i) {
    c.members.push_back(i);
    if ((i + 1) % m == 0 || i + 1 == V) c.offsets.push_back(i + 1);
  }
  return c;
}

at::Tensor random_table(std::int64_t V, std::int64_t d, std::uint64_t seed) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  return at::randn({V, d}, g);
}

}  // namespace

TEST_CASE("WeightSynth noise is Laplace(Delta_u / eps) on the softmax weights", "[obfuslm]") {
  const std::vector<double> sigma = {1.0, 0.8, 0.3, -0.1, 0.55};
  const double epsilon = 2.0;
  // u_j = exp(eps sigma_j / 2) / sum: computed here independently.
  std::vector<double> u(sigma.size());
  double total = 0;
  for (std::size_t j = 0; j < u.size(); ++j) total += u[j] = std::exp(epsilon * sigma[j] / 2);
  for (double& v : u) v /= total;
  const double scale = (*std::max_element(u.begin(), u.end()) - *std::min_element(u.begin(), u.end())) / epsilon;
  std::vector<double> noise;
  for (std::uint64_t row = 0; row < 4000; ++row) {
    embpriv::Rng rng(99, row);
    const embpriv::NoisySoftmax w = embpriv::noisy_softmax(sigma, epsilon, rng);
    REQUIRE(w.scale == Approx(scale).epsilon(1e-12));
    for (std::size_t j = 0; j < u.size(); ++j) {
      CHECK(w.u[j] == Approx(u[j]).epsilon(1e-12));
      noise.push_back(w.noisy[j] - w.u[j]);
    }
  }
  const auto laplace = [](double b) { return [b](double x) { return embpriv::laplace_cdf(x, b); }; };
  CHECK_FALSE(embpriv::ks_test(noise, laplace(scale), kAlpha).reject());
  // A broken implementation (noise scale Delta_u / (2 eps)) fails the same test.
  CHECK(embpriv::ks_test(noise, laplace(scale / 2), kAlpha).reject());
  // A singleton: Delta_u = 0, no noise, weight exactly 1.
  embpriv::Rng rng(1, 0);
  CHECK(embpriv::noisy_softmax({1.0}, epsilon, rng).noisy == std::vector<double>{1.0});
}

TEST_CASE("errata: normalization sum keeps weights summing to 1; exp (the text) shrinks rows",
          "[obfuslm][errata]") {
  const std::vector<double> noisy = {0.5, 0.3, 0.1, 0.1};
  const std::vector<double> by_sum = embpriv::normalize_weights(noisy, embpriv::WeightNormalization::sum);
  CHECK(std::accumulate(by_sum.begin(), by_sum.end(), 0.0) == Approx(1.0).epsilon(1e-15));
  double denominator = 0;
  const std::vector<double> by_exp =
      embpriv::normalize_weights(noisy, embpriv::WeightNormalization::exp, &denominator);
  CHECK(denominator == Approx(std::exp(0.5) + std::exp(0.3) + 2 * std::exp(0.1)));
  // sum_j u'_j / sum_j exp(u'_j) <= 1 / (m e^(1/m)) by Jensen: about 0.19 here, not 1.
  CHECK(std::accumulate(by_exp.begin(), by_exp.end(), 0.0) < 1.0 / (4 * std::exp(0.25)) + 1e-12);

  // k = 1: `sum` is the identity (bit for bit); `exp` scales every row by 1/e.
  const at::Tensor E = random_table(50, 8, 3);
  const embpriv::Clusters singletons = clusters_of_size(50, 1);
  const auto with = [&](embpriv::WeightNormalization n) {
    return embpriv::weight_synth(E, at::Tensor(), singletons, {1.0, n, 7}).embedding;
  };
  CHECK(at::equal(with(embpriv::WeightNormalization::sum), E));
  CHECK(at::allclose(with(embpriv::WeightNormalization::exp), E / std::exp(1.0), 1e-6, 1e-7));
}

TEST_CASE("WeightSynth rows are W E (and W H for a head), independent of the thread count", "[obfuslm]") {
  const at::Tensor E = random_table(60, 12, 5), H = random_table(60, 4, 6);
  const embpriv::Clusters c = clusters_of_size(60, 7);
  const embpriv::SynthesisOptions options{3.0, embpriv::WeightNormalization::sum, 11};
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const embpriv::SynthesisedRows one = embpriv::weight_synth(E, H, c, options);
  at::set_num_threads(2);
  const embpriv::SynthesisedRows two = embpriv::weight_synth(E, H, c, options);
  at::set_num_threads(threads);
  CHECK(at::equal(one.embedding, two.embedding));
  CHECK(at::equal(one.head, two.head));
  // Row 9 (member 2 of the cluster {7..13}) recomputed from its own weights.
  const at::Tensor Ed = E.to(at::kDouble), unit = Ed / Ed.norm(2, 1, true);
  const at::Tensor members = at::arange(7, 14, at::kLong);
  const at::Tensor sigma = at::matmul(unit[9].unsqueeze(0), unit.index_select(0, members).t())[0].contiguous();
  embpriv::Rng rng(11, 9);
  const std::vector<double> w = embpriv::synthesis_weights(
      std::vector<double>(sigma.data_ptr<double>(), sigma.data_ptr<double>() + 7), 3.0,
      embpriv::WeightNormalization::sum, rng);
  const at::Tensor expected = at::matmul(at::tensor(w, at::kDouble).unsqueeze(0), Ed.index_select(0, members))[0];
  CHECK(at::allclose(one.embedding[9].to(at::kDouble), expected, 1e-5, 1e-6));
  const at::Tensor expected_head =
      at::matmul(at::tensor(w, at::kDouble).unsqueeze(0), H.to(at::kDouble).index_select(0, members))[0];
  CHECK(at::allclose(one.head[9].to(at::kDouble), expected_head, 1e-5, 1e-6));
  // Larger eps: the weights concentrate on the row itself (the mix tends to the identity).
  const auto distance_to_E = [&](double eps) {
    return (embpriv::weight_synth(E, at::Tensor(), c, {eps, embpriv::WeightNormalization::sum, 11}).embedding - E)
        .norm()
        .item<double>();
  };
  CHECK(distance_to_E(1000.0) < 0.2 * distance_to_E(1.0));
}

TEST_CASE("WeightSynth rejects bad input", "[obfuslm]") {
  const at::Tensor E = random_table(10, 3, 1);
  CHECK_THROWS_WITH(embpriv::weight_synth(E, at::Tensor(), clusters_of_size(10, 2), {0.0, embpriv::WeightNormalization::sum, 1}),
                    Catch::Contains("epsilon"));
  CHECK_THROWS_WITH(embpriv::weight_synth(E, at::Tensor(), clusters_of_size(9, 2), {1.0, embpriv::WeightNormalization::sum, 1}),
                    Catch::Contains("clusters hold 9 rows"));
  CHECK_THROWS_WITH(embpriv::weight_synth(E, random_table(9, 3, 1), clusters_of_size(10, 2), {1.0, embpriv::WeightNormalization::sum, 1}),
                    Catch::Contains("the head must be"));
  CHECK_THROWS_WITH(embpriv::parse_weight_normalization("softmax"), Catch::Contains("sum or exp"));
}
