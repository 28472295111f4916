#include "data/privateai/proxy_skew.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"

namespace embpriv {

int unit_category(unsigned kinds) {
  for (int k = 0; k < kUnitCategories - 1; ++k) {
    if (kinds & (1u << k)) return k + 1;
  }
  return 0;
}

std::vector<double> category_shares(const std::vector<const TextUnit*>& units) {
  std::vector<double> shares(kUnitCategories, 0.0);
  for (const TextUnit* u : units) shares[static_cast<std::size_t>(unit_category(u->kinds))] += 1;
  for (double& s : shares) s /= std::max<double>(1, static_cast<double>(units.size()));
  return shares;
}

double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
  double d = 0;
  for (std::size_t c = 0; c < p.size(); ++c) d += std::abs(p[c] - q[c]);
  return d / 2;
}

SkewedDraw draw_skewed(const std::vector<const TextUnit*>& pool, const std::vector<double>& p, std::int64_t n,
                       double beta, std::uint64_t seed) {
  EMBPRIV_CHECK(beta > 0 && std::isfinite(beta), "proxy skew: beta must be finite and > 0, got " << beta);
  EMBPRIV_CHECK(p.size() == kUnitCategories, "proxy skew: p must have " << kUnitCategories << " shares");
  std::vector<std::vector<const TextUnit*>> by_category(kUnitCategories);
  for (const TextUnit* u : pool) by_category[static_cast<std::size_t>(unit_category(u->kinds))].push_back(u);
  Rng rng(seed, 0);
  // q ~ Dirichlet(beta p): normalised Gamma(beta p_c, 1) draws, over the categories the pool
  // holds (and p gives weight); all-zero draws (tiny shapes underflow) put q on the largest p.
  SkewedDraw draw;
  draw.target.assign(kUnitCategories, 0.0);
  double total = 0;
  for (int c = 0; c < kUnitCategories; ++c) {
    if (p[static_cast<std::size_t>(c)] > 0 && !by_category[static_cast<std::size_t>(c)].empty()) {
      total += draw.target[static_cast<std::size_t>(c)] = rng.gamma(beta * p[static_cast<std::size_t>(c)]);
    }
  }
  if (!(total > 0)) {
    int best = -1;
    for (int c = 0; c < kUnitCategories; ++c) {
      const auto k = static_cast<std::size_t>(c);
      if (!by_category[k].empty() && (best < 0 || p[k] > p[static_cast<std::size_t>(best)])) best = c;
    }
    EMBPRIV_CHECK(best >= 0, "proxy skew: the proxy e-mails hold no unit");
    draw.target[static_cast<std::size_t>(best)] = total = 1;
  }
  for (double& q : draw.target) q /= total;
  std::vector<double> cumulative(kUnitCategories);
  std::partial_sum(draw.target.begin(), draw.target.end(), cumulative.begin());
  for (std::int64_t i = 0; i < n; ++i) {
    const double u = rng.uniform() * cumulative.back();
    auto c = std::min<std::size_t>(kUnitCategories - 1, static_cast<std::size_t>(
                 std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin()));
    while (draw.target[c] == 0) --c;  // rounding at the top edge: the last category q gives weight
    const auto& units = by_category[c];
    draw.units.push_back(units[static_cast<std::size_t>(rng.uniform_index(static_cast<std::int64_t>(units.size())))]);
  }
  draw.distance = total_variation(category_shares(draw.units), p);
  return draw;
}

}  // namespace embpriv
