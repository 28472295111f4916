#include "metrics/ks_test.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {
namespace {

// Sorts the samples after checking them: the empirical CDF needs finite values.
void sort_samples(std::vector<double>& samples) {
  EMBPRIV_CHECK(!samples.empty(), "the KS test needs at least one sample");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EMBPRIV_CHECK(std::isfinite(samples[i]),
                  "KS sample " << i << " is not finite (" << samples[i] << ")");
  }
  std::sort(samples.begin(), samples.end());
}

// D_n = max_i max(i/n - F(x_(i)), F(x_(i)) - (i-1)/n) for sorted x_(1) <= ... <= x_(n): the
// supremum of |F_n - F| over the real line is reached at a sample point or just before it.
KsResult ks_from_cdf_values(const std::vector<double>& sorted, const std::vector<double>& cdf,
                            double critical) {
  const std::int64_t n = static_cast<std::int64_t>(sorted.size());
  EMBPRIV_ASSERT(cdf.size() == sorted.size(),
                 "the CDF gave " << cdf.size() << " values for " << n << " samples");
  const double inv_n = 1.0 / static_cast<double>(n);
  double statistic = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double f = cdf[static_cast<std::size_t>(i)];
    EMBPRIV_CHECK(f >= 0.0 && f <= 1.0, "the CDF must lie in [0, 1], got " << f << " at "
                                                                             << sorted[i]);
    const double above = static_cast<double>(i + 1) * inv_n - f;
    const double below = f - static_cast<double>(i) * inv_n;
    statistic = std::max(statistic, std::max(above, below));
  }
  return {statistic, critical, n};
}

}  // namespace

double ks_critical_value(std::int64_t n, double alpha) {
  EMBPRIV_CHECK(n >= 1, "the KS test needs n >= 1 samples, got " << n);
  require_open_interval("alpha", alpha, 0.0, 1.0);
  // Dvoretzky, Kiefer & Wolfowitz (1956) with Massart's (1990) tight constant:
  // P(D_n > c) <= 2 exp(-2 n c^2); solving 2 exp(-2 n c^2) = alpha for c.
  return std::sqrt(std::log(2.0 / alpha) / (2.0 * static_cast<double>(n)));
}

KsResult ks_test(std::vector<double> samples, const std::function<double(double)>& cdf,
                 double alpha) {
  sort_samples(samples);
  // Checks n and alpha before the (possibly costly) CDF evaluations.
  const double critical = ks_critical_value(static_cast<std::int64_t>(samples.size()), alpha);
  std::vector<double> values(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) values[i] = cdf(samples[i]);
  return ks_from_cdf_values(samples, values, critical);
}

KsResult ks_test_sorted_cdf(std::vector<double> samples,
                            const std::function<std::vector<double>(const std::vector<double>&)>&
                                cdf_of_sorted,
                            double alpha) {
  sort_samples(samples);
  const double critical = ks_critical_value(static_cast<std::int64_t>(samples.size()), alpha);
  return ks_from_cdf_values(samples, cdf_of_sorted(samples), critical);
}

}  // namespace embpriv
