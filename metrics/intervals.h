#pragma once
// Confidence intervals (Boost.Math distributions).
#include <cstdint>

namespace embpriv {

struct Interval {
  double lo;
  double hi;
  bool contains(double value) const { return lo <= value && value <= hi; }
};

// Exact two-sided Clopper-Pearson interval for a binomial proportion successes / trials at the
// given confidence (e.g. 0.999): Beta quantiles, lo = 0 when successes = 0, hi = 1 when all.
Interval clopper_pearson(std::int64_t successes, std::int64_t trials, double confidence);

// The two-sided standard-normal quantile z with P(|Z| <= z) = confidence (1.959964 for 0.95).
double normal_two_sided_quantile(double confidence);

// mean +- z * standard_error, the normal (CLT) interval for a mean.
Interval normal_mean_interval(double mean, double standard_error, double confidence);

}  // namespace embpriv
