// The classifier's Transformer encoder gives the same bits at 1 and 2 LibTorch threads
// (models/transformer_encoder.h): its layer norm gives LibTorch's values and gradients at one
// thread and the same at two, where LibTorch's own kernel sums the parameters' gradients
// differently; a classifier trained at 1 and at 2 threads ends with the same parameters.
#include "tests/catch.h"

#include <ATen/ATen.h>
#include <torch/torch.h>

#include "models/text_classifier.h"
#include "models/transformer_encoder.h"
#include "tests/federated/privateai_test_data.h"

using namespace embpriv;

namespace {

// Sets LibTorch's thread count for a scope.
class Threads {
 public:
  explicit Threads(int n) : before_(at::get_num_threads()) { at::set_num_threads(n); }
  ~Threads() { at::set_num_threads(before_); }

 private:
  int before_;
};

struct LayerNormRun {
  at::Tensor y, dx, dweight, dbias;
};

// y = LayerNorm(x) on a [L = 48, B = 256, d = 100] input (1.2 million elements: enough that
// the parameters' gradients are split among the threads) and the gradients of sum(y * r) for a
// fixed random r.
LayerNormRun layer_norm_run(bool invariant, int threads) {
  const Threads scope(threads);
  at::Generator generator = at::detail::createCPUGenerator(11);
  const at::Tensor x = at::randn({48, 256, 100}, generator).requires_grad_();
  const at::Tensor weight = (1 + 0.1 * at::randn({100}, generator)).requires_grad_();
  const at::Tensor bias = (0.1 * at::randn({100}, generator)).requires_grad_();
  const at::Tensor r = at::randn({48, 256, 100}, generator);
  const at::Tensor y = invariant ? thread_invariant_layer_norm(x, weight, bias, 1e-5)
                                 : torch::layer_norm(x, {100}, weight, bias, 1e-5);
  (y * r).sum().backward();
  return {y.detach(), x.grad(), weight.grad(), bias.grad()};
}

}  // namespace

TEST_CASE("layer norm: LibTorch's values at one thread and the same bits at two", "[models][privateai]") {
  const LayerNormRun torch1 = layer_norm_run(false, 1), torch2 = layer_norm_run(false, 2);
  const LayerNormRun ours1 = layer_norm_run(true, 1), ours2 = layer_norm_run(true, 2);
  // The input is one where the thread count matters: LibTorch's kernel keeps one partial sum of
  // dL/dweight and dL/dbias per thread, and 2 partial sums round differently from 1.
  CHECK_FALSE(at::equal(torch2.dweight, torch1.dweight));
  CHECK_FALSE(at::equal(torch2.dbias, torch1.dbias));
  // At one thread the replacement is LibTorch's layer norm, bit for bit.
  CHECK(at::equal(ours1.y, torch1.y));
  CHECK(at::equal(ours1.dx, torch1.dx));
  CHECK(at::equal(ours1.dweight, torch1.dweight));
  CHECK(at::equal(ours1.dbias, torch1.dbias));
  // At two threads it gives the same bits as at one.
  CHECK(at::equal(ours2.y, ours1.y));
  CHECK(at::equal(ours2.dx, ours1.dx));
  CHECK(at::equal(ours2.dweight, ours1.dweight));
  CHECK(at::equal(ours2.dbias, ours1.dbias));
  // A few rows (summed in one thread at any thread count; LibTorch splits even 3 rows among
  // its threads) agree with the kernel at one thread too.
  const at::Tensor x = at::linspace(-2, 3, 300).reshape({3, 100}).requires_grad_();
  const at::Tensor w = at::linspace(0.5, 1.5, 100).requires_grad_(), b = at::linspace(-1, 1, 100).requires_grad_();
  {
    const Threads two(2);
    thread_invariant_layer_norm(x, w, b, 1e-5).pow(2).sum().backward();
  }
  const at::Tensor x1 = x.detach().clone().requires_grad_(), w1 = w.detach().clone().requires_grad_(),
                   b1 = b.detach().clone().requires_grad_();
  {
    const Threads one(1);
    torch::layer_norm(x1, {100}, w1, b1, 1e-5).pow(2).sum().backward();
  }
  CHECK(at::equal(x.grad(), x1.grad()));
  CHECK(at::equal(w.grad(), w1.grad()));
  CHECK(at::equal(b.grad(), b1.grad()));
  CHECK_THROWS_WITH(thread_invariant_layer_norm(x.detach().to(at::kDouble), w, b, 1e-5),
                    Catch::Contains("a float input"));
  CHECK_THROWS_WITH(thread_invariant_layer_norm(x.detach(), w.detach().narrow(0, 0, 50), b, 1e-5),
                    Catch::Contains("of the input's width 100"));
}

TEST_CASE("text classifier: the same training at 1 and 2 threads", "[models][privateai]") {
  const PrivateAiData& data = small_privateai_data();
  TrainOptions train;
  train.epochs = 2;
  train.learning_rate = 1e-3;
  const auto trained = [&](int threads) {
    const Threads scope(threads);
    TextClassifier model(data.embeddings, TextClassifierOptions{});
    model.train(data.public_split.ids, data.public_split.labels, train, 4);
    double loss = 0;
    const at::Tensor gradient = model.gradient(data.test.ids, data.test.labels, &loss);
    return std::make_tuple(model.shared_parameters(), gradient, loss, model.probabilities(data.test.ids));
  };
  const auto [parameters1, gradient1, loss1, answers1] = trained(1);
  const auto [parameters2, gradient2, loss2, answers2] = trained(2);
  CHECK(at::equal(parameters1, parameters2));
  CHECK(at::equal(gradient1, gradient2));
  CHECK(loss1 == loss2);
  CHECK(at::equal(answers1, answers2));
}
