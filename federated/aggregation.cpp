#include "federated/aggregation.h"

#include <ATen/ATen.h>


#include "core/error.h"

namespace embpriv {

const char* to_string(Aggregator aggregator) { return aggregator == Aggregator::fedavg ? "fedavg" : "fedadam"; }

ServerAggregator::ServerAggregator(Aggregator aggregator, const FedAdamOptions& o) : aggregator_(aggregator), options_(o) {
  EMBPRIV_CHECK(o.eta > 0 && o.tau0 > 0 && o.tau1 >= 0 && o.tau1 < 1 && o.tau2 >= 0 && o.tau2 < 1,
                "FedAdam: eta and tau0 must be > 0 and tau1, tau2 in [0, 1), got eta=" << o.eta << " tau0=" << o.tau0
                                                                                        << " tau1=" << o.tau1
                                                                                        << " tau2=" << o.tau2);
}

at::Tensor sum_of_releases(const at::Tensor& global, const std::vector<at::Tensor>& released, const char* who) {
  EMBPRIV_CHECK(!released.empty(), who << ": no client released a model this round");
  at::Tensor sum = at::zeros({global.size(0)}, at::kDouble);
  for (const at::Tensor& r : released) {
    EMBPRIV_CHECK(r.sizes() == global.sizes(), who << ": a release of shape " << r.sizes() << " for a model of "
                                                   << global.sizes());
    sum += r.to(at::kDouble);
  }
  return sum;
}

at::Tensor mean_of_releases(const at::Tensor& global, const std::vector<at::Tensor>& released, const char* who) {
  return sum_of_releases(global, released, who) / static_cast<double>(released.size());
}

at::Tensor ServerAggregator::step(const at::Tensor& global, const std::vector<at::Tensor>& released) {
  const at::Tensor mean = mean_of_releases(global, released, "aggregation");
  if (aggregator_ == Aggregator::fedavg) return mean.to(global.scalar_type());
  const at::Tensor gradient = mean - global.to(at::kDouble);  // nabla_n
  if (!first_moment_.defined()) {
    first_moment_ = at::zeros_like(gradient);
    second_moment_ = at::zeros_like(gradient);
  }
  first_moment_ = options_.tau1 * first_moment_ + (1 - options_.tau1) * gradient;
  second_moment_ = options_.tau2 * second_moment_ + (1 - options_.tau2) * gradient * gradient;
  return (global.to(at::kDouble) + options_.eta * first_moment_ / (second_moment_ + options_.tau0).sqrt())
      .to(global.scalar_type());
}

}  // namespace embpriv
