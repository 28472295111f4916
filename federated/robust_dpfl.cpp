#include "federated/robust_dpfl.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "accounting/renyi_dp.h"
#include "core/error.h"

namespace embpriv {

double rdp_calibrated_sigma(double epsilon, double delta, std::int64_t releases, double l2_sensitivity) {
  EMBPRIV_CHECK(epsilon > 0 && std::isfinite(epsilon), "Robust-DPFL: eps must be > 0, got " << epsilon);
  EMBPRIV_CHECK(delta > 0 && delta < 1, "Robust-DPFL: delta must be in (0, 1), got " << delta);
  EMBPRIV_CHECK(releases >= 1, "Robust-DPFL: releases must be >= 1, got " << releases);
  EMBPRIV_CHECK(l2_sensitivity > 0, "Robust-DPFL: the sensitivity must be > 0, got " << l2_sensitivity);
  const auto eps_of = [&](double multiplier) { return gaussian_rdp_account(multiplier, releases, delta).epsilon; };
  double low = 1e-3, high = 1.0;
  while (eps_of(high) > epsilon) high *= 2;  // eps falls as the noise grows
  for (int i = 0; i < 100 && high - low > 1e-12 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (eps_of(mid) > epsilon ? low : high) = mid;
  }
  return high * l2_sensitivity;
}

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

}  // namespace embpriv
