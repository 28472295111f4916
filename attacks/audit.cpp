#include "attacks/audit.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "metrics/intervals.h"

namespace embpriv {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

std::vector<double> to_vector(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

at::Tensor unit(const at::Tensor& v) { return v / v.norm().clamp_min(1e-300); }

// Every statistic of the family, for outputs y [R, d]; medians come from the selection half.
struct Statistics {
  at::Tensor x0, x1, direction;  // direction: (x0 - x1) / ||x0 - x1||
  double median0 = 0, median1 = 0;
  static constexpr int kCount = 5;
  static const char* name(int s) {
    static const char* names[] = {"projection", "cosine_to_x0", "cosine_difference", "near_median_angle_x0",
                                  "near_median_angle_x1"};
    return names[s];
  }
  std::vector<double> of(int s, const at::Tensor& y) const {
    const at::Tensor yd = y.to(at::kDouble);
    const at::Tensor yu = yd / yd.norm(2, 1, true).clamp_min(1e-300);
    switch (s) {
      case 0: return to_vector(at::matmul(yd, direction));
      case 1: return to_vector(at::matmul(yu, unit(x0)));
      case 2: return to_vector(at::matmul(yu, unit(x0)) - at::matmul(yu, unit(x1)));
      case 3: return to_vector(-(at::matmul(yu, unit(x0)) - median0).abs());
      default: return to_vector(-(at::matmul(yu, unit(x1)) - median1).abs());
    }
  }
};

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::int64_t count_above(const std::vector<double>& sorted, double t) {
  return static_cast<std::int64_t>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), t));
}

// The raw-frequency version of side_log_ratio_bound (may be +inf).
double side_estimate(TestSide side, std::int64_t a, std::int64_t b, std::int64_t n, double delta) {
  const double p0 = static_cast<double>(a) / static_cast<double>(n), p1 = static_cast<double>(b) / static_cast<double>(n);
  double num = 0, den = 0;
  switch (side) {
    case TestSide::event_favours_x0: num = p0, den = p1; break;
    case TestSide::event_favours_x1: num = p1, den = p0; break;
    case TestSide::complement_favours_x0: num = 1 - p0, den = 1 - p1; break;
    case TestSide::complement_favours_x1: num = 1 - p1, den = 1 - p0; break;
  }
  if (num - delta <= 0) return kMinusInfinity;
  return den <= 0 ? std::numeric_limits<double>::infinity() : std::log((num - delta) / den);
}

// The bounds of one audit that are sound for its mechanism, each at confidence 1 - (1 - c) / k,
// on the tests the audit already chose (attacks/audit.h, BestBound).
BestBound best_sound_bound(const AuditResult& r, const std::vector<TradeoffPoint>& measured,
                           const AuditOptions& options) {
  const bool gdp_sound = options.gaussian_noise && options.delta > 0;
  BestBound best;
  best.bounds = gdp_sound ? 3 : 2;
  const double each = 1 - (1 - options.confidence) / best.bounds;
  best.eps_lower_bound = std::max(0.0, side_log_ratio_bound(r.side, r.hits_x0, r.hits_x1, r.trials, each, options.delta));
  best.name = "eps_lower_bound";
  const double all = eps_lower_bound_over_thresholds(measured, r.trials, each, options.delta);
  if (all > best.eps_lower_bound) {
    best.eps_lower_bound = all;
    best.name = "eps_lower_bound_all_thresholds";
  }
  if (gdp_sound) {
    // Gaussian noise: mu_low <= mu of the pair, and eps(mu) at delta grows with mu (DRS 2022,
    // Cor. 2.13), so eps(mu_low) <= the pair's true eps at the claim's delta.
    const double gdp = gdp_epsilon(gdp_mu_lower_bound(r.gdp, r.trials, each), options.delta);
    if (gdp > best.eps_lower_bound) {
      best.eps_lower_bound = gdp;
      best.name = "gdp_eps_low";
    }
  }
  return best;
}

}  // namespace

double audit_log_ratio_bound(std::int64_t hits_num, std::int64_t n_num, std::int64_t hits_den, std::int64_t n_den,
                             double confidence, double delta) {
  // One-sided Clopper-Pearson bounds, each failing with probability (1 - confidence) / 2, so
  // both hold together with probability >= confidence (union bound). The lower bound of the
  // numerator is the Beta(k, n - k + 1) quantile (1 - confidence) / 2 and the upper bound of the
  // denominator the Beta(k + 1, n - k) quantile 1 - (1 - confidence) / 2 (Clopper & Pearson
  // 1934): exactly the ends of the equal-tailed two-sided interval at `confidence` itself,
  // whose tails are (1 - confidence) / 2 each.
  const double numerator = clopper_pearson(hits_num, n_num, confidence).lo - delta;
  const double denominator = clopper_pearson(hits_den, n_den, confidence).hi;
  if (numerator <= 0) return kMinusInfinity;
  return std::log(numerator / denominator);
}

const char* test_side_name(TestSide side) {
  switch (side) {
    case TestSide::event_favours_x0: return "event_favours_x0";
    case TestSide::event_favours_x1: return "event_favours_x1";
    case TestSide::complement_favours_x0: return "complement_favours_x0";
    case TestSide::complement_favours_x1: return "complement_favours_x1";
  }
  return "";
}

double side_log_ratio_bound(TestSide side, std::int64_t a, std::int64_t b, std::int64_t n, double confidence,
                            double delta) {
  switch (side) {
    case TestSide::event_favours_x0: return audit_log_ratio_bound(a, n, b, n, confidence, delta);
    case TestSide::event_favours_x1: return audit_log_ratio_bound(b, n, a, n, confidence, delta);
    case TestSide::complement_favours_x0: return audit_log_ratio_bound(n - a, n, n - b, n, confidence, delta);
    case TestSide::complement_favours_x1: return audit_log_ratio_bound(n - b, n, n - a, n, confidence, delta);
  }
  return kMinusInfinity;
}

AuditResult audit_pair(const OutputSampler& sample, const at::Tensor& x0, const at::Tensor& x1,
                       const AuditOptions& options, std::uint64_t seed) {
  EMBPRIV_CHECK(options.trials >= 10, "audit: trials must be >= 10, got " << options.trials);
  EMBPRIV_CHECK(options.confidence > 0 && options.confidence < 1, "audit: confidence must be in (0, 1)");
  EMBPRIV_CHECK(options.delta >= 0 && options.delta < 1, "audit: delta must be in [0, 1)");
  EMBPRIV_CHECK(x0.numel() == x1.numel() && x0.numel() >= 1 && !at::equal(x0, x1),
                "audit: x0 and x1 must be two different vectors of the same size");
  const std::int64_t n = options.trials;
  Statistics stats;
  stats.x0 = x0.to(at::kDouble).reshape({-1});
  stats.x1 = x1.to(at::kDouble).reshape({-1});
  stats.direction = unit(stats.x0 - stats.x1);

  // Selection half: the best (statistic, threshold, side) by its own lower bound.
  const at::Tensor select0 = sample(0, n, derive_seed(seed, 0, "audit.select")),
                   select1 = sample(1, n, derive_seed(seed, 1, "audit.select"));
  const at::Tensor yu0 = select0.to(at::kDouble) / select0.to(at::kDouble).norm(2, 1, true).clamp_min(1e-300);
  const at::Tensor yu1 = select1.to(at::kDouble) / select1.to(at::kDouble).norm(2, 1, true).clamp_min(1e-300);
  stats.median0 = median(to_vector(at::matmul(yu0, unit(stats.x0))));
  stats.median1 = median(to_vector(at::matmul(yu1, unit(stats.x1))));
  double best = kMinusInfinity;
  int best_statistic = 0;
  TestSide best_side = TestSide::event_favours_x0;
  double best_threshold = 0;
  for (int s = 0; s < Statistics::kCount; ++s) {
    std::vector<double> v0 = stats.of(s, select0), v1 = stats.of(s, select1);
    std::sort(v0.begin(), v0.end());
    std::sort(v1.begin(), v1.end());
    std::vector<double> pooled(v0);
    pooled.insert(pooled.end(), v1.begin(), v1.end());
    std::sort(pooled.begin(), pooled.end());
    for (std::int64_t c = 0; c < options.thresholds; ++c) {
      // Thresholds at evenly spaced ranks of the pooled values, both ends included.
      const auto rank = static_cast<std::size_t>(static_cast<double>(c) / static_cast<double>(options.thresholds - 1) *
                                                 static_cast<double>(pooled.size() - 1));
      const double t = pooled[rank];
      const std::int64_t a = count_above(v0, t), b = count_above(v1, t);
      for (const TestSide side : kTestSides) {
        const double bound = side_log_ratio_bound(side, a, b, n, options.confidence, options.delta);
        if (bound > best) {
          best = bound;
          best_statistic = s;
          best_side = side;
          best_threshold = t;
        }
      }
    }
  }

  // Measurement half: fresh outputs, the chosen test only.
  const std::vector<double> m0 = stats.of(best_statistic, sample(0, n, derive_seed(seed, 0, "audit.measure")));
  const std::vector<double> m1 = stats.of(best_statistic, sample(1, n, derive_seed(seed, 1, "audit.measure")));
  AuditResult r;
  r.test = Statistics::name(best_statistic);
  r.side = best_side;
  r.threshold = best_threshold;
  r.trials = n;
  r.hits_x0 = std::count_if(m0.begin(), m0.end(), [&](double v) { return v > best_threshold; });
  r.hits_x1 = std::count_if(m1.begin(), m1.end(), [&](double v) { return v > best_threshold; });
  r.eps_lower_bound = std::max(0.0, side_log_ratio_bound(best_side, r.hits_x0, r.hits_x1, n, options.confidence, options.delta));
  r.eps_estimate = std::max(0.0, side_estimate(best_side, r.hits_x0, r.hits_x1, n, options.delta));

  // Every threshold of the chosen statistic (attacks/audit_tradeoff.h).
  const std::vector<TradeoffPoint> measured = tradeoff_points(m0, m1, options.thresholds);
  r.eps_lower_bound_all_thresholds =
      eps_lower_bound_over_thresholds(measured, n, options.confidence, options.delta);
  for (const TradeoffPoint& p : measured) {
    r.tradeoff_alpha.push_back(static_cast<double>(p.above_x1) / static_cast<double>(n));
    r.tradeoff_beta.push_back(1 - static_cast<double>(p.above_x0) / static_cast<double>(n));
  }
  const std::vector<TradeoffPoint> selected =
      tradeoff_points(stats.of(best_statistic, select0), stats.of(best_statistic, select1), options.thresholds);
  r.gdp = gdp_estimate(selected, m0, m1, n, options.confidence, options.delta);
  r.best = best_sound_bound(r, measured, options);
  return r;
}

}  // namespace embpriv
