// InvBert (attacks/invbert.h): the Transformer reads the whole perturbed sentence. On text whose
// tokens follow from each other it recovers far more than KNN under heavy noise; on sentences
// that repeat one token it reads all 12 noisy copies where the window MLP reads 5, and recovers
// more; the same seed trains the same model at 1 and 2 threads. Synthetic vocabulary, fixed
// seeds; each claim would fail for a network that ignored the context or its positions.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include "attacks/invbert.h"
#include "attacks/learned_inversion.h"
#include "attacks/nearest_rows.h"
#include "metrics/recovery.h"
#include "tests/catch.h"

namespace {

// Sentences of 12 tokens over V = 40: a random start, then t -> next(t).
template <typename Next>
embpriv::TokenSequences sentences(std::int64_t count, std::uint64_t seed, Next next) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  const at::Tensor starts = at::randint(40, {count}, g);
  std::vector<std::int64_t> ids;
  embpriv::TokenSequences text;
  for (std::int64_t s = 0; s < count; ++s) {
    const std::size_t begin = ids.size();
    std::int64_t t = starts[s].item<std::int64_t>();
    for (int i = 0; i < 12; ++i, t = next(t)) ids.push_back(t);
    text.spans.emplace_back(begin, ids.size());
  }
  text.ids = at::tensor(ids, at::kLong);
  return text;
}

struct Setup {
  at::Tensor table;
  embpriv::RowPerturber perturb;
};

Setup noisy_setup(double sigma) {
  at::Generator g = at::detail::createCPUGenerator(3);
  Setup s{at::randn({40, 16}, g), {}};
  s.perturb = [sigma](const at::Tensor& rows, std::uint64_t seed) {
    at::Generator noise = at::detail::createCPUGenerator(seed);
    return rows + sigma * at::randn(rows.sizes(), noise);
  };
  return s;
}

embpriv::InvBertOptions small_options() {
  embpriv::InvBertOptions o;
  o.hidden = 32;
  o.layers = 1;
  o.heads = 2;
  o.feedforward = 64;
  o.epochs = 12;
  o.batch = 16;
  o.learning_rate = 3e-3;
  o.seed = 9;
  return o;
}

}  // namespace

TEST_CASE("InvBert cuts long texts into pieces in order", "[attacks]") {
  using Spans = std::vector<std::pair<std::size_t, std::size_t>>;
  CHECK(embpriv::cut_spans({{0, 5}, {5, 6}}, 2) == Spans{{0, 2}, {2, 4}, {4, 5}, {5, 6}});
  CHECK(embpriv::cut_spans({{3, 5}}, 8) == Spans{{3, 5}});
}

TEST_CASE("InvBert reads context that KNN cannot, the same at 1 and 2 threads", "[attacks]") {
  const Setup s = noisy_setup(2.5);
  const auto chain = [](std::int64_t t) { return (7 * t + 3) % 40; };
  const embpriv::TokenSequences train = sentences(300, 1, chain), test = sentences(60, 2, chain);
  const at::Tensor noisy = s.perturb(s.table.index_select(0, test.ids), 77);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const embpriv::InvBert one = embpriv::InvBert::train(train, s.table, s.perturb, at::Tensor(), small_options());
  at::set_num_threads(2);
  const embpriv::InvBert two = embpriv::InvBert::train(train, s.table, s.perturb, at::Tensor(), small_options());
  at::set_num_threads(threads);
  const at::Tensor guesses = one.guess(noisy, test.spans, 3);
  const double learned = embpriv::top_k_recovery(test.ids, guesses, 1);
  embpriv::KnnOptions knn;
  knn.k = 1;
  const double nearest = embpriv::top_k_recovery(test.ids, embpriv::nearest_rows(noisy, s.table, knn).indices, 1);
  INFO("InvBert " << learned << " knn " << nearest);
  CHECK(nearest < 0.5);
  CHECK(learned > nearest + 0.3);
  // The same seed gives the same model whatever the thread count: the same bits of loss and guesses.
  CHECK(one.final_training_loss() == two.final_training_loss());
  CHECK(two.guess(noisy, test.spans, 3).equal(guesses));
  // An excluded token is never guessed.
  at::Tensor excluded = at::zeros({40}, at::kBool);
  excluded[test.ids[0].item<std::int64_t>()] = true;
  embpriv::InvBertOptions brief = small_options();
  brief.epochs = 1;  // the mask acts on the guesses, whatever the training
  const embpriv::InvBert masked = embpriv::InvBert::train(train, s.table, s.perturb, excluded, brief);
  CHECK(masked.guess(noisy, test.spans, 3).eq(test.ids[0]).sum().item<std::int64_t>() == 0);
}

TEST_CASE("InvBert reads the whole sentence where the window MLP reads 5 rows", "[attacks]") {
  // Each sentence repeats one token 12 times: the whole sentence holds 12 noisy copies of it.
  const Setup s = noisy_setup(5.0);
  const auto same = [](std::int64_t t) { return t; };
  const embpriv::TokenSequences train = sentences(300, 4, same), test = sentences(60, 5, same);
  const at::Tensor noisy = s.perturb(s.table.index_select(0, test.ids), 78);
  embpriv::InvBertOptions options = small_options();
  options.epochs = 30;
  const embpriv::InvBert invbert = embpriv::InvBert::train(train, s.table, s.perturb, at::Tensor(), options);
  embpriv::LearnedInversionOptions mlp;
  mlp.window = 2;
  mlp.epochs = 30;
  mlp.seed = 9;
  const embpriv::LearnedInverter window = embpriv::LearnedInverter::train(train, s.table, s.perturb, at::Tensor(), mlp);
  const double whole = embpriv::top_k_recovery(test.ids, invbert.guess(noisy, test.spans, 1), 1);
  const double five = embpriv::top_k_recovery(test.ids, window.guess(noisy, test.spans, 1), 1);
  INFO("InvBert " << whole << " window MLP " << five);
  CHECK(whole > five + 0.1);
}
