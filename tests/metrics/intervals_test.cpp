// Tests of metrics/intervals.h: Clopper-Pearson and normal intervals.
#include "metrics/intervals.h"

#include <boost/math/distributions/binomial.hpp>
#include "tests/catch.h"
#include <cmath>
#include <limits>

#include "core/error.h"

namespace {

double relative_error(double value, double reference) {
  return std::fabs(value - reference) / std::fabs(reference);
}

}  // namespace

TEST_CASE("clopper_pearson matches 50-digit reference intervals", "[intervals]") {
  // References: the Beta quantiles inverted by bisection on mpmath's regularised incomplete
  // beta at 50 digits (mpmath 1.3.0); they agree with R's binom.test to the digits it prints
  // (e.g. 5 of 10: 0.1870860 0.8129140).
  struct Case {
    std::int64_t successes, trials;
    double confidence, lo, hi;
  };
  const Case cases[] = {
      {0, 10, 0.95, 0.0, 0.30849710781876082},
      {1, 10, 0.95, 0.0025285785444617845, 0.44501611702819542},
      {5, 10, 0.95, 0.18708602844739853, 0.81291397155260147},
      {10, 10, 0.95, 0.69150289218123918, 1.0},
      {3, 1000, 0.999, 0.00014984252803814013, 0.013858069267406338},
      {999990, 1000000, 0.999999, 0.99996461507110938, 0.999998818899715},
  };
  for (const Case& c : cases) {
    INFO(c.successes << " of " << c.trials << " at " << c.confidence);
    const embpriv::Interval interval = embpriv::clopper_pearson(c.successes, c.trials, c.confidence);
    if (c.lo == 0.0) {
      CHECK(interval.lo == 0.0);
    } else {
      CHECK(relative_error(interval.lo, c.lo) < 1e-12);
    }
    if (c.hi == 1.0) {
      CHECK(interval.hi == 1.0);
    } else {
      CHECK(relative_error(interval.hi, c.hi) < 1e-12);
    }
  }
  // 0 of n has the closed form hi = 1 - (a/2)^(1/n) (e.g. 0.30849 for 0 of 10 at 95%).
  CHECK(relative_error(embpriv::clopper_pearson(0, 10, 0.95).hi,
                       1.0 - std::pow(0.025, 0.1)) < 1e-14);
}

TEST_CASE("clopper_pearson ends are where the binomial tails equal (1 - confidence) / 2",
          "[intervals]") {
  // The defining property (Clopper & Pearson 1934): P(X >= k | p = lo) = a/2 and
  // P(X <= k | p = hi) = a/2, checked with Boost's binomial CDF (an independent code path).
  for (std::int64_t n : {7, 50, 1000}) {
    for (std::int64_t k : {std::int64_t{1}, n / 3, n - 1}) {
      for (double confidence : {0.9, 0.999}) {
        INFO(k << " of " << n << " at " << confidence);
        const double tail = 0.5 * (1.0 - confidence);
        const embpriv::Interval interval = embpriv::clopper_pearson(k, n, confidence);
        const boost::math::binomial_distribution<double> at_lo(static_cast<double>(n), interval.lo);
        const boost::math::binomial_distribution<double> at_hi(static_cast<double>(n), interval.hi);
        CHECK(relative_error(boost::math::cdf(boost::math::complement(at_lo, k - 1)), tail) < 1e-9);
        CHECK(relative_error(boost::math::cdf(at_hi, k), tail) < 1e-9);
        // Symmetry: n - k successes give the mirrored interval.
        const embpriv::Interval mirrored = embpriv::clopper_pearson(n - k, n, confidence);
        CHECK(std::fabs(mirrored.lo - (1.0 - interval.hi)) < 1e-14);
        CHECK(std::fabs(mirrored.hi - (1.0 - interval.lo)) < 1e-14);
        CHECK(interval.contains(static_cast<double>(k) / static_cast<double>(n)));
      }
    }
  }
}

TEST_CASE("clopper_pearson rejects bad counts and confidences", "[intervals]") {
  CHECK_THROWS_AS(embpriv::clopper_pearson(0, 0, 0.95), embpriv::Error);
  CHECK_THROWS_AS(embpriv::clopper_pearson(-1, 10, 0.95), embpriv::Error);
  CHECK_THROWS_WITH(embpriv::clopper_pearson(11, 10, 0.95), Catch::Contains("successes"));
  CHECK_THROWS_WITH(embpriv::clopper_pearson(1, 10, 1.0), Catch::Contains("confidence"));
  CHECK_THROWS_AS(embpriv::clopper_pearson(1, 10, 0.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::clopper_pearson(1, 10, std::numeric_limits<double>::quiet_NaN()),
                  embpriv::Error);
}

TEST_CASE("normal_two_sided_quantile and normal_mean_interval", "[intervals]") {
  // References: sqrt(2) erfinv(confidence) with mpmath at 40 digits, for the double nearest
  // to each confidence. (Python's NormalDist().inv_cdf((1 + c) / 2) is off by 2e-11 at
  // c = 1 - 1e-6: forming (1 + c) / 2 loses the tail's digits, which the complement avoids.)
  CHECK(relative_error(embpriv::normal_two_sided_quantile(0.95), 1.9599639845400538556) < 1e-14);
  CHECK(relative_error(embpriv::normal_two_sided_quantile(0.99), 2.5758293035489004539) < 1e-14);
  CHECK(relative_error(embpriv::normal_two_sided_quantile(1.0 - 1e-6), 4.8916384756929317718) <
        1e-14);
  const embpriv::Interval interval = embpriv::normal_mean_interval(10.0, 2.0, 0.95);
  CHECK(relative_error(interval.lo, 10.0 - 2.0 * 1.9599639845400538556) < 1e-14);
  CHECK(relative_error(interval.hi, 10.0 + 2.0 * 1.9599639845400538556) < 1e-14);
  CHECK(interval.contains(10.0));
  CHECK_FALSE(interval.contains(14.0));
  // A zero standard error gives the point itself.
  const embpriv::Interval point = embpriv::normal_mean_interval(3.0, 0.0, 0.95);
  CHECK((point.lo == 3.0 && point.hi == 3.0));
  CHECK_THROWS_AS(embpriv::normal_two_sided_quantile(1.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::normal_mean_interval(0.0, -1.0, 0.95), embpriv::Error);
  CHECK_THROWS_AS(embpriv::normal_mean_interval(std::numeric_limits<double>::infinity(), 1.0, 0.95),
                  embpriv::Error);
}
