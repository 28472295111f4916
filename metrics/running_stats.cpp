#include "metrics/running_stats.h"

#include <algorithm>
#include <cmath>

namespace embpriv {

void RunningStats::add(double value) {
  // Welford (1962): numerically stable one-pass mean and sum of squared deviations.
  ++count_;
  const double delta = value - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (value - mean_);
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

double RunningStats::variance() const {
  return count_ > 1 ? m2_ / static_cast<double>(count_ - 1) : 0.0;
}

double RunningStats::standard_deviation() const { return std::sqrt(variance()); }

double RunningStats::standard_error() const {
  return count_ > 0 ? standard_deviation() / std::sqrt(static_cast<double>(count_)) : 0.0;
}

}  // namespace embpriv
