#include "metrics/intervals.h"

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {

Interval clopper_pearson(std::int64_t successes, std::int64_t trials, double confidence) {
  EMBPRIV_CHECK(trials >= 1, "trials must be >= 1, got " << trials);
  EMBPRIV_CHECK(successes >= 0 && successes <= trials,
                "successes must be in [0, trials = " << trials << "], got " << successes);
  require_open_interval("confidence", confidence, 0.0, 1.0);
  // Clopper & Pearson (1934): with k successes in n trials and a = (1 - confidence) / 2,
  // lo = Beta(k, n - k + 1) quantile a and hi = Beta(k + 1, n - k) quantile 1 - a (the
  // equal-tailed inversion of the binomial test; e.g. Brown, Cai & DasGupta 2001, eq. 4).
  const double tail = 0.5 * (1.0 - confidence);
  const double k = static_cast<double>(successes);
  const double n = static_cast<double>(trials);
  Interval interval{0.0, 1.0};
  if (successes > 0) {
    const boost::math::beta_distribution<double> lower(k, n - k + 1.0);
    interval.lo = boost::math::quantile(lower, tail);
  }
  if (successes < trials) {
    const boost::math::beta_distribution<double> upper(k + 1.0, n - k);
    // The upper quantile through the complement keeps full precision for tiny tails.
    interval.hi = boost::math::quantile(boost::math::complement(upper, tail));
  }
  return interval;
}

double normal_two_sided_quantile(double confidence) {
  require_open_interval("confidence", confidence, 0.0, 1.0);
  // P(|Z| <= z) = confidence <=> P(Z > z) = (1 - confidence) / 2; the complement form stays
  // accurate for confidence close to 1 (e.g. 1 - 1e-12).
  const boost::math::normal_distribution<double> standard_normal(0.0, 1.0);
  return boost::math::quantile(
      boost::math::complement(standard_normal, 0.5 * (1.0 - confidence)));
}

Interval normal_mean_interval(double mean, double standard_error, double confidence) {
  EMBPRIV_CHECK(std::isfinite(mean), "mean must be finite, got " << mean);
  EMBPRIV_CHECK(std::isfinite(standard_error) && standard_error >= 0,
                "standard_error must be finite and >= 0, got " << standard_error);
  const double half_width = normal_two_sided_quantile(confidence) * standard_error;
  return {mean - half_width, mean + half_width};
}

}  // namespace embpriv
