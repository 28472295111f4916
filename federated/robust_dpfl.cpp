#include "federated/robust_dpfl.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "federated/protocol.h"

namespace embpriv {

RobustAggregate noise_aware_mean(const std::vector<at::Tensor>& releases, double sigma, double clip_norm, double z) {
  EMBPRIV_CHECK(!releases.empty(), "Robust-DPFL: no client released a model this round");
  EMBPRIV_CHECK(sigma >= 0 && clip_norm > 0 && z > 0, "Robust-DPFL: sigma >= 0, theta > 0 and z > 0 needed");
  const auto n = static_cast<std::int64_t>(releases.size());
  const at::Tensor R = at::stack(releases).to(at::kDouble);  // [n, P]
  const auto P = static_cast<double>(R.size(1));
  RobustAggregate out;
  const double mean = 4 * clip_norm * clip_norm + 2 * P * sigma * sigma;
  const double sd = 2 * std::sqrt(2 * P) * sigma * sigma + 4 * std::sqrt(2.0) * clip_norm * sigma;
  out.threshold = mean + z * sd;
  std::vector<std::int64_t> kept;
  if (n >= 3) {
    const at::Tensor distances = at::cdist(R, R).pow(2);  // [n, n]
    for (std::int64_t u = 0; u < n; ++u) {
      std::vector<double> others;
      for (std::int64_t v = 0; v < n; ++v) {
        if (v != u) others.push_back(distances[u][v].item<double>());
      }
      std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2), others.end());
      if (others[others.size() / 2] <= out.threshold) kept.push_back(u);
    }
  }
  if (2 * static_cast<std::int64_t>(kept.size()) < n) {  // too few to tell (or n < 3): keep every release
    kept.clear();
    for (std::int64_t u = 0; u < n; ++u) kept.push_back(u);
  }
  out.kept = static_cast<std::int64_t>(kept.size());
  out.model = R.index_select(0, at::tensor(kept, at::kLong)).mean(0).to(releases.front().scalar_type());
  return out;
}

namespace {

// Robust-DPFL's protocol: eq. (4) releases whose noise is calibrated for the whole run (by
// default, published_choices), aggregated by the noise-aware mean.
class RobustDpflProtocol final : public Protocol {
 public:
  explicit RobustDpflProtocol(const FederatedOptions& o)
      : Protocol(o, calibrated_noise(o.dp, 2.0 * o.dp.clip_norm, o.rounds)) {}  // Delta2 = 2 theta, T releases

  at::Tensor aggregate(const at::Tensor& global, const std::vector<at::Tensor>& released,
                       RoundRecord& record) override {
    record.kept_releases = static_cast<std::int64_t>(released.size());
    // Without DP nothing is clipped and there is no noise floor to test against: every
    // release counts, as in FedAvg.
    if (!options_.dp.enabled) return mean_of_releases(global, released, "Robust-DPFL").to(global.scalar_type());
    const RobustAggregate robust = noise_aware_mean(released, noise_.sigma, options_.dp.clip_norm, options_.robust_z);
    record.kept_releases = robust.kept;
    return robust.model;
  }
};

}  // namespace

std::unique_ptr<Protocol> make_robust_dpfl_protocol(const FederatedOptions& options) {
  return std::make_unique<RobustDpflProtocol>(options);
}

}  // namespace embpriv
