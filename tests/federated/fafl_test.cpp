// FAFL (FAFED, Wu et al. 2023, Alg. 1) on real e-mail units: with full batches the STORM
// estimator is the full gradient, so q local steps are preconditioned gradient descent,
// x^{k+1} = x^k - gamma A^{-1} grad f(x^k), checked step by step against the model's own
// gradients; with mini-batches the momentum weight a changes the path (a = 1 is plain SGD); the
// server's adaptive matrix follows u <- rho u + (1 - rho) vbar^2 with vbar = A (x - mean) / (gamma q).
#include "tests/catch.h"

#include <ATen/ATen.h>

#include "core/error.h"
#include "federated/fafl.h"
#include "tests/federated/privateai_test_data.h"

using namespace embpriv;

TEST_CASE("FAFL: full-batch local steps are preconditioned gradient descent", "[federated][privateai]") {
  const PrivateAiData& data = small_privateai_data();
  const at::Tensor ids = data.candidates.ids.narrow(0, 0, 40), labels = data.candidates.labels.narrow(0, 0, 40);
  TextClassifier start(data.embeddings, TextClassifierOptions{});
  const std::int64_t P = start.shared_size();
  FaflOptions o;
  o.steps = 3;
  o.batch = 64;  // >= 40 units: full batches
  o.learning_rate = 0.05;
  o.momentum = 0.3;
  const at::Tensor inverse = at::linspace(0.5, 2.0, P, at::kFloat);  // a non-trivial A^{-1}
  TextClassifier model = start.clone();
  fafl_local_steps(model, ids, labels, inverse, o, 7);
  TextClassifier reference = start.clone();
  at::Tensor x = reference.shared_parameters();
  for (int k = 0; k < 3; ++k) {
    x = x - o.learning_rate * inverse * reference.gradient(ids, labels);
    reference.set_shared_parameters(x);
  }
  CHECK(at::allclose(model.shared_parameters(), x, 1e-4, 1e-6));
  CHECK_FALSE(at::allclose(x, start.shared_parameters()));
}

TEST_CASE("FAFL: with mini-batches the momentum weight changes the path; a seed fixes it", "[federated][privateai]") {
  const PrivateAiData& data = small_privateai_data();
  const at::Tensor ids = data.candidates.ids.narrow(0, 0, 100), labels = data.candidates.labels.narrow(0, 0, 100);
  TextClassifier start(data.embeddings, TextClassifierOptions{});
  const at::Tensor inverse = at::full({start.shared_size()}, 1.0f);
  FaflOptions o;
  o.steps = 4;
  o.batch = 8;
  o.learning_rate = 0.05;
  const auto run = [&](double a) {
    FaflOptions with = o;
    with.momentum = a;
    TextClassifier model = start.clone();
    fafl_local_steps(model, ids, labels, inverse, with, 3);
    return model.shared_parameters();
  };
  CHECK(at::equal(run(0.2), run(0.2)));
  CHECK_FALSE(at::allclose(run(0.2), run(1.0)));
  TextClassifier model = start.clone();
  FaflOptions bad = o;
  bad.momentum = 0;
  CHECK_THROWS_AS(fafl_local_steps(model, ids, labels, inverse, bad, 3), Error);
  CHECK_THROWS_AS(fafl_local_steps(model, ids, labels, at::ones({3}), o, 3), Error);
}

TEST_CASE("FAFL: the server averages and updates the shared adaptive matrix", "[federated]") {
  FaflOptions o;
  o.steps = 2;
  o.learning_rate = 0.5;
  o.rho = 0.9;
  o.lambda = 0.1;
  FaflServer server(2, o);
  CHECK(at::allclose(server.inverse_preconditioner(), at::full({2}, 10.0f)));  // u = 0: A = lambda I
  const at::Tensor global = at::tensor({1.0f, -1.0f});
  const at::Tensor next = server.step(global, {at::tensor({0.8f, -1.0f}), at::tensor({0.6f, -0.8f})});
  CHECK(at::allclose(next, at::tensor({0.7f, -0.9f})));
  // vbar = lambda (x - mean) / (gamma q) = 0.1 * (0.3, -0.1) / 1; u = 0.1 vbar^2.
  const double v0 = 0.1 * 0.3, v1 = 0.1 * -0.1;
  const at::Tensor expected = at::tensor({1 / (std::sqrt(0.1 * v0 * v0) + 0.1), 1 / (std::sqrt(0.1 * v1 * v1) + 0.1)});
  CHECK(at::allclose(server.inverse_preconditioner().to(at::kDouble), expected, 1e-5));
  CHECK_THROWS_AS(server.step(global, {}), Error);
}
