#include "attacks/audit_tradeoff.h"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attacks/audit.h"
#include "core/error.h"
#include "mechanisms/gaussian_calibration.h"
#include "metrics/intervals.h"

namespace embpriv {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::int64_t count_above(const std::vector<double>& sorted, double t) {
  return static_cast<std::int64_t>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), t));
}

// Phi^-1(p), -inf at 0 and +inf at 1.
double probit(double p) {
  if (p <= 0) return -kInfinity;
  if (p >= 1) return kInfinity;
  return boost::math::quantile(boost::math::normal_distribution<double>(0.0, 1.0), p);
}

// The four one-sided ends of P0 = a / n and P1 = b / n, each failing with (1 - c) / 4: the ends
// of two-sided Clopper-Pearson intervals at 1 - (1 - c) / 2.
struct Ends {
  Interval p0, p1;
};
Ends ends(std::int64_t a, std::int64_t b, std::int64_t n, double confidence) {
  const double each = 1 - (1 - confidence) / 2;
  return {clopper_pearson(a, n, each), clopper_pearson(b, n, each)};
}

// mu >= Phi^-1(P0) - Phi^-1(P1) for O favouring x0 (sign +1), the reverse for x1 (sign -1).
double mu_of(double p0, double p1, int sign) { return sign * (probit(p0) - probit(p1)); }
double mu_low_of(const Ends& e, int sign) {
  return sign > 0 ? probit(e.p0.lo) - probit(e.p1.hi) : probit(e.p1.lo) - probit(e.p0.hi);
}
double mu_high_of(const Ends& e, int sign) {
  return sign > 0 ? probit(e.p0.hi) - probit(e.p1.lo) : probit(e.p1.hi) - probit(e.p0.lo);
}

}  // namespace

std::vector<TradeoffPoint> tradeoff_points(const std::vector<double>& scores_x0, const std::vector<double>& scores_x1,
                                           std::int64_t count) {
  EMBPRIV_CHECK(count >= 2, "audit: at least 2 thresholds are needed, got " << count);
  EMBPRIV_CHECK(!scores_x0.empty() && !scores_x1.empty(), "audit: no scores");
  std::vector<double> s0(scores_x0), s1(scores_x1), pooled(scores_x0);
  pooled.insert(pooled.end(), scores_x1.begin(), scores_x1.end());
  std::sort(s0.begin(), s0.end());
  std::sort(s1.begin(), s1.end());
  std::sort(pooled.begin(), pooled.end());
  std::vector<TradeoffPoint> points;
  for (std::int64_t c = 0; c < count; ++c) {
    const auto rank = static_cast<std::size_t>(static_cast<double>(c) / static_cast<double>(count - 1) *
                                               static_cast<double>(pooled.size() - 1));
    const double t = pooled[rank];
    points.push_back({t, count_above(s0, t), count_above(s1, t)});
  }
  return points;
}

double eps_lower_bound_over_thresholds(const std::vector<TradeoffPoint>& points, std::int64_t n, double confidence,
                                       double delta) {
  EMBPRIV_CHECK(confidence > 0 && confidence < 1, "audit: confidence must be in (0, 1)");
  EMBPRIV_CHECK(!points.empty(), "audit: no thresholds");
  // 4 ratios per threshold, each from 2 one-sided bounds: audit_log_ratio_bound at confidence
  // c' fails with (1 - c') (both bounds together); c' = 1 - (1 - c) / (4 m) over m thresholds.
  const double each = 1 - (1 - confidence) / (4 * static_cast<double>(points.size()));
  double best = 0;
  for (const TradeoffPoint& p : points) {
    for (const TestSide side : kTestSides) {
      best = std::max(best, side_log_ratio_bound(side, p.above_x0, p.above_x1, n, each, delta));
    }
  }
  return best;
}

double gdp_epsilon(double mu, double delta) {
  if (!(mu > 0)) return 0;
  if (delta <= 0 || !std::isfinite(mu) || mu > 1e5) return kInfinity;
  // mu-GDP is the Gaussian mechanism of sensitivity 1 and sigma = 1 / mu (DRS 2022, Thm 2.7).
  return analytic_gaussian_epsilon(1 / mu, delta, 1.0);
}

GdpEstimate gdp_estimate(const std::vector<TradeoffPoint>& selection, const std::vector<double>& scores_x0,
                         const std::vector<double>& scores_x1, std::int64_t n, double confidence, double delta) {
  EMBPRIV_CHECK(!selection.empty(), "audit: no thresholds");
  // The threshold and side with the largest lower end of mu on the selection half.
  double best = -kInfinity;
  TradeoffPoint chosen = selection.front();
  int sign = 1;
  for (const TradeoffPoint& p : selection) {
    const Ends e = ends(p.above_x0, p.above_x1, n, confidence);
    for (const int s : {1, -1}) {
      const double low = mu_low_of(e, s);
      if (low > best) {
        best = low;
        chosen = p;
        sign = s;
      }
    }
  }
  const auto above = [&](const std::vector<double>& v) {
    return static_cast<std::int64_t>(std::count_if(v.begin(), v.end(), [&](double x) { return x > chosen.threshold; }));
  };
  const std::int64_t a = above(scores_x0), b = above(scores_x1);
  const Ends e = ends(a, b, n, confidence);
  GdpEstimate g;
  g.threshold = chosen.threshold;
  g.mu = mu_of(static_cast<double>(a) / static_cast<double>(n), static_cast<double>(b) / static_cast<double>(n), sign);
  g.mu_low = std::max(0.0, mu_low_of(e, sign));
  g.mu_high = std::max(0.0, mu_high_of(e, sign));
  g.sign = sign;
  g.above_x0 = a;
  g.above_x1 = b;
  g.eps = gdp_epsilon(g.mu, delta);
  g.eps_low = delta > 0 ? gdp_epsilon(g.mu_low, delta) : std::numeric_limits<double>::quiet_NaN();
  return g;
}

double gdp_mu_lower_bound(const GdpEstimate& g, std::int64_t n, double confidence) {
  EMBPRIV_CHECK(confidence > 0 && confidence < 1, "audit: confidence must be in (0, 1)");
  return std::max(0.0, mu_low_of(ends(g.above_x0, g.above_x1, n, confidence), g.sign));
}

}  // namespace embpriv
