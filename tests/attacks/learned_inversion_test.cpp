// The learned inversion attack (attacks/learned_inversion.h): windows are cut within sentences,
// and on text whose next token follows from the previous one the MLP reads the context that
// KNN cannot: under heavy noise it recovers far more tokens than the nearest row does, and the
// same seed trains the same model. Synthetic vocabulary, fixed seeds.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "attacks/learned_inversion.h"
#include "attacks/nearest_rows.h"
#include "metrics/recovery.h"
#include "tests/catch.h"

namespace {

// Sentences of 12 tokens over V = 40: a random start, then t -> (7 t + 3) mod 40.
embpriv::TokenSequences chain_text(std::int64_t sentences, std::uint64_t seed) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  const at::Tensor starts = at::randint(40, {sentences}, g);
  std::vector<std::int64_t> ids;
  embpriv::TokenSequences text;
  for (std::int64_t s = 0; s < sentences; ++s) {
    const std::size_t begin = ids.size();
    std::int64_t t = starts[s].item<std::int64_t>();
    for (int i = 0; i < 12; ++i, t = (7 * t + 3) % 40) ids.push_back(t);
    text.spans.emplace_back(begin, ids.size());
  }
  text.ids = at::tensor(ids, at::kLong);
  return text;
}

}  // namespace

TEST_CASE("token windows stay within their sentence", "[attacks]") {
  const at::Tensor rows = at::arange(1, 6, at::kFloat).unsqueeze(1);  // rows 1..5, d = 1
  const at::Tensor w = embpriv::token_windows(rows, {{0, 2}, {2, 5}}, 1);
  // Sentence [1, 2] then [3, 4, 5]; zeros outside a sentence.
  CHECK(w.equal(at::tensor({0.f, 1.f, 2.f, 1.f, 2.f, 0.f, 0.f, 3.f, 4.f, 3.f, 4.f, 5.f, 4.f, 5.f, 0.f}).reshape({5, 3})));
}

TEST_CASE("learned inversion reads context that KNN cannot", "[attacks]") {
  at::Generator g = at::detail::createCPUGenerator(3);
  const at::Tensor table = at::randn({40, 16}, g);
  const double sigma = 2.5;  // noise per coordinate, rows have unit-variance coordinates
  const embpriv::RowPerturber perturb = [&](const at::Tensor& rows, std::uint64_t seed) {
    at::Generator noise = at::detail::createCPUGenerator(seed);
    return rows + sigma * at::randn(rows.sizes(), noise);
  };
  const embpriv::TokenSequences train = chain_text(400, 1), test = chain_text(100, 2);
  embpriv::LearnedInversionOptions options;
  options.window = 2;
  options.epochs = 15;
  options.seed = 9;
  const embpriv::LearnedInverter inverter = embpriv::LearnedInverter::train(train, table, perturb, at::Tensor(), options);
  const at::Tensor noisy = perturb(table.index_select(0, test.ids), 77);
  const double learned = embpriv::top_k_recovery(test.ids, inverter.guess(noisy, test.spans, 1), 1);
  embpriv::KnnOptions knn;
  knn.k = 1;
  const double nearest = embpriv::top_k_recovery(test.ids, embpriv::nearest_rows(noisy, table, knn).indices, 1);
  INFO("learned " << learned << " knn " << nearest);
  CHECK(nearest < 0.5);
  CHECK(learned > nearest + 0.3);
  // A window of 0 (no context) cannot use the chain: it is no better than KNN by much.
  options.window = 0;
  const embpriv::LearnedInverter alone = embpriv::LearnedInverter::train(train, table, perturb, at::Tensor(), options);
  CHECK(embpriv::top_k_recovery(test.ids, alone.guess(noisy, test.spans, 1), 1) < learned - 0.2);
  // Seeded: the same options train the same model.
  options.window = 2;
  const embpriv::LearnedInverter again = embpriv::LearnedInverter::train(train, table, perturb, at::Tensor(), options);
  CHECK(again.guess(noisy, test.spans, 3).equal(inverter.guess(noisy, test.spans, 3)));
}
