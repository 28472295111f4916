#include "federated/fafl.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "federated/aggregation.h"
#include "federated/protocol.h"

namespace embpriv {

void check_fafl_options(const FaflOptions& o) {
  EMBPRIV_CHECK(o.steps >= 1 && o.batch >= 1, "FAFL: steps and batch must be >= 1");
  EMBPRIV_CHECK(o.learning_rate > 0 && std::isfinite(o.learning_rate), "FAFL: the learning rate must be > 0");
  EMBPRIV_CHECK(o.momentum > 0 && o.momentum <= 1, "FAFL: the momentum weight a must be in (0, 1], got " << o.momentum);
  EMBPRIV_CHECK(o.rho >= 0 && o.rho < 1, "FAFL: rho must be in [0, 1), got " << o.rho);
  EMBPRIV_CHECK(o.lambda > 0, "FAFL: lambda must be > 0, got " << o.lambda);
}

double fafl_local_steps(TextClassifier& model, const at::Tensor& ids, const at::Tensor& labels,
                        const at::Tensor& inverse_preconditioner, const FaflOptions& o, std::uint64_t seed) {
  check_fafl_options(o);
  const std::int64_t N = ids.size(0);
  EMBPRIV_CHECK(N >= 1, "FAFL: a client without units");
  EMBPRIV_CHECK(inverse_preconditioner.sizes() == at::IntArrayRef{model.shared_size()},
                "FAFL: a preconditioner of " << inverse_preconditioner.sizes() << " for " << model.shared_size()
                                             << " parameters");
  Rng rng(derive_seed(seed, 0, "fafl.batches"), 0);
  const auto batch = [&] {  // |B| rows drawn uniformly with replacement; all rows when |B| >= N
    std::vector<std::int64_t> rows(static_cast<std::size_t>(std::min(o.batch, N)));
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = o.batch >= N ? static_cast<std::int64_t>(i) : rng.uniform_index(N);
    return at::tensor(rows, at::kLong);
  };
  const at::Tensor step_scale = o.learning_rate * inverse_preconditioner.to(at::kFloat);
  at::Tensor rows = batch();
  double loss = 0, total = 0;
  at::Tensor x = model.shared_parameters();
  at::Tensor v = model.gradient(ids.index_select(0, rows), labels.index_select(0, rows), &loss);
  for (std::int64_t k = 0; k < o.steps; ++k) {
    total += loss;
    const at::Tensor next = x - step_scale * v;  // x^{k+1} = x^k - gamma A^{-1} v^k
    rows = batch();
    const at::Tensor b_ids = ids.index_select(0, rows), b_labels = labels.index_select(0, rows);
    const at::Tensor old_gradient = model.gradient(b_ids, b_labels);  // at x^k, batch B_{k+1}
    model.set_shared_parameters(next);
    const at::Tensor new_gradient = model.gradient(b_ids, b_labels, &loss);
    v = new_gradient + (1 - o.momentum) * (v - old_gradient);  // STORM
    x = next;
  }
  return total / static_cast<double>(o.steps);
}

FaflServer::FaflServer(std::int64_t parameters, const FaflOptions& o)
    : options_(o), second_moment_(at::zeros({parameters}, at::kDouble)) {
  check_fafl_options(o);
}

at::Tensor FaflServer::inverse_preconditioner() const {
  return (1.0 / (second_moment_.sqrt() + options_.lambda)).to(at::kFloat);
}

namespace {

// FAFL's protocol: STORM local steps preconditioned by the server's matrix, eq. (4) releases
// (Delta2 = 2 theta, one a round), the server's mean and matrix update.
class FaflProtocol final : public Protocol {
 public:
  FaflProtocol(const FederatedOptions& o, std::int64_t parameters)
      : Protocol(o, calibrated_noise(o.dp, 2.0 * o.dp.clip_norm, o.rounds)), server_(parameters, o.fafl) {}

  double train_locally(TextClassifier& local, const LabelledUnits& data, std::uint64_t seed) const override {
    return fafl_local_steps(local, data.ids, data.labels, server_.inverse_preconditioner(), options_.fafl, seed);
  }

  at::Tensor aggregate(const at::Tensor& global, const std::vector<at::Tensor>& released,
                       RoundRecord& record) override {
    record.kept_releases = static_cast<std::int64_t>(released.size());
    return server_.step(global, released);
  }

 private:
  FaflServer server_;
};

}  // namespace

std::unique_ptr<Protocol> make_fafl_protocol(const FederatedOptions& options, std::int64_t parameters) {
  return std::make_unique<FaflProtocol>(options, parameters);
}

at::Tensor FaflServer::step(const at::Tensor& global, const std::vector<at::Tensor>& released) {
  const at::Tensor mean = mean_of_releases(global, released, "FAFL");
  // vbar = A (x - mean x^q) / (gamma q): the mean preconditioned step undone.
  const at::Tensor direction = (second_moment_.sqrt() + options_.lambda) * (global.to(at::kDouble) - mean) /
                               (options_.learning_rate * static_cast<double>(options_.steps));
  second_moment_ = options_.rho * second_moment_ + (1 - options_.rho) * direction * direction;
  return mean.to(global.scalar_type());
}

}  // namespace embpriv
