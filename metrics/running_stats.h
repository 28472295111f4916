#pragma once
// Mean, variance, min and max of a stream of values (Welford 1962), added in a fixed order so
// results are reproducible bit for bit.
#include <cstdint>
#include <limits>

namespace embpriv {

class RunningStats {
 public:
  void add(double value);
  std::int64_t count() const { return count_; }
  double mean() const { return mean_; }
  double variance() const;  // unbiased (n - 1); 0 for fewer than two values
  double standard_deviation() const;
  double standard_error() const;  // sd / sqrt(n)
  double min() const { return min_; }
  double max() const { return max_; }

 private:
  std::int64_t count_ = 0;
  double mean_ = 0;
  double m2_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

}  // namespace embpriv
