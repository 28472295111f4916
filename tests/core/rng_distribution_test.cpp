// Statistical tests of the generator's normal, exponential, Laplace, gamma and beta variates
// (core/rng.h); tests/mechanisms/noise_distribution_test.cpp tests the noise the `gaussian`
// and `laplace` mechanisms add with them.
//
// Every test states its false-alarm rate and its power (GUIDE.md, sec. 4, habits 6-7): each
// acceptance is a KS test (DKW-Massart critical value, metrics/ks_test.h) or an exact binomial
// interval at alpha = 1e-6 with a fixed seed, and each is paired with a deliberately broken
// variant (a scale off by a few percent, a wrong shape) that the same test must reject.
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "core/rng.h"
#include "metrics/distributions.h"
#include "metrics/intervals.h"
#include "metrics/ks_test.h"
#include "tests/catch.h"

namespace {

constexpr double kAlpha = 1e-6;

// n draws of one of the generator's variates from the row generator (seed, row).
template <class Draw>
std::vector<double> draws(std::size_t n, std::uint64_t seed, Draw draw) {
  embpriv::Rng rng(seed, 0);
  std::vector<double> values(n);
  for (double& v : values) v = draw(rng);
  return values;
}

std::vector<double> scaled(std::vector<double> values, double factor) {
  for (double& v : values) v *= factor;
  return values;
}

double standard_normal(double x) { return embpriv::standard_normal_cdf(x); }
double standard_laplace(double x) { return embpriv::laplace_cdf(x, 1.0); }
double standard_exponential(double x) { return x <= 0 ? 0.0 : -std::expm1(-x); }

// Whether the exact (Clopper-Pearson) interval of `count` of `n` at confidence 1 - alpha
// contains p.
bool binomial_consistent(std::int64_t count, std::int64_t n, double p) {
  return embpriv::clopper_pearson(count, n, 1.0 - kAlpha).contains(p);
}

// Pearson's chi-square test of streamed draws against a continuous CDF, binned finely (width
// `step` on [lo, hi), plus the two outer tails) and then merged left to right until every bin
// expects >= 100 draws, so the chi-square approximation holds. Far more sensitive than KS to
// small local errors of the density, such as a ziggurat wedge or table that is slightly off.
class BinnedChiSquare {
 public:
  BinnedChiSquare(double lo, double hi, double step, std::function<double(double)> cdf)
      : lo_(lo), step_(step), cdf_(std::move(cdf)),
        fine_(static_cast<std::size_t>(std::llround((hi - lo) / step)) + 2, 0) {}
  void add(double x) {
    const double position = (x - lo_) / step_;
    std::size_t bin;
    if (position < 0) {
      bin = 0;
    } else {
      bin = std::min(fine_.size() - 1, static_cast<std::size_t>(position) + 1);
    }
    ++fine_[bin];
    ++n_;
  }
  // The p-value of the statistic under the null (chi-square with bins - 1 degrees of freedom).
  double p_value() const {
    double statistic = 0, expected = 0, observed = 0;
    int bins = 0;
    for (std::size_t i = 0; i < fine_.size(); ++i) {
      const double left = i == 0 ? 0.0 : cdf_(lo_ + step_ * static_cast<double>(i - 1));
      const double right = i + 1 == fine_.size() ? 1.0 : cdf_(lo_ + step_ * static_cast<double>(i));
      expected += (right - left) * static_cast<double>(n_);
      observed += static_cast<double>(fine_[i]);
      if (expected >= 100.0 || i + 1 == fine_.size()) {
        statistic += (observed - expected) * (observed - expected) / expected;
        expected = observed = 0;
        ++bins;
      }
    }
    const boost::math::chi_squared_distribution<double> null(bins - 1);
    return boost::math::cdf(boost::math::complement(null, statistic));
  }

 private:
  double lo_, step_;
  std::function<double(double)> cdf_;
  std::vector<std::int64_t> fine_;
  std::int64_t n_ = 0;
};

}  // namespace

TEST_CASE("Rng::normal is N(0, 1); a 1.03x scale is rejected", "[stat][rng]") {
  // n = 1e6: critical value 0.0027; N(0, 1.03^2) is at KS distance 0.0073 from N(0, 1).
  const std::vector<double> z = draws(1000000, 11, [](embpriv::Rng& r) { return r.normal(); });
  CHECK_FALSE(embpriv::ks_test(z, standard_normal, kAlpha).reject());
  CHECK(embpriv::ks_test(scaled(z, 1.03), standard_normal, kAlpha).reject());
}

TEST_CASE("Rng::normal passes 1e8-draw binned chi-square tests; a 1.002x scale fails",
          "[stat][rng]") {
  // Two binnings, each rejecting at p < 1e-6: width 0.01 on [-6, 6) (~1100 bins after merging
  // to >= 100 expected draws) for sharp local errors such as a ziggurat wedge, and width 0.2
  // (60 bins) for errors spread over a layer or more, such as a ziggurat table built from a
  // slightly wrong layer area V. Power: N(0, 1.002^2) has noncentrality
  // n sum p (dp/p)^2 ~ 1e8 * 0.002^2 * 2 = 800, far beyond either null's spread. (A KS test at
  // this n would need the 1e8 draws stored and sorted.)
  BinnedChiSquare fine(-6.0, 6.0, 0.01, standard_normal), coarse(-6.0, 6.0, 0.2, standard_normal);
  BinnedChiSquare wide_fine(-6.0, 6.0, 0.01, standard_normal),
      wide_coarse(-6.0, 6.0, 0.2, standard_normal);
  embpriv::Rng rng(16, 0);
  for (std::int64_t i = 0; i < 100000000; ++i) {
    const double z = rng.normal();
    fine.add(z);
    coarse.add(z);
    wide_fine.add(1.002 * z);
    wide_coarse.add(1.002 * z);
  }
  INFO("p-values: fine " << fine.p_value() << ", coarse " << coarse.p_value() << "; 1.002x: "
                         << wide_fine.p_value() << ", " << wide_coarse.p_value());
  CHECK(fine.p_value() > kAlpha);
  CHECK(coarse.p_value() > kAlpha);
  CHECK(wide_fine.p_value() < kAlpha);
  CHECK(wide_coarse.p_value() < kAlpha);
}

TEST_CASE("Rng::normal's ziggurat tail has the right mass and shape", "[stat][rng]") {
  // Beyond R = 3.6541528853610088 the ziggurat switches to Marsaglia's (1964) tail algorithm,
  // which a KS test of all draws barely sees (mass 2.6e-4). From 1e8 draws (streamed; ~26,000
  // land beyond R), count |z| > R against P(|Z| > R) = erfc(R / sqrt 2) with an exact binomial
  // interval, and KS-test |z| beyond R against the conditional tail CDF 1 - Q(x) / Q(R)
  // (critical value 0.017). Power: the tail algorithm without its rejection step (R + Exp(R))
  // is at KS distance 0.037; N(0, 1.03^2) puts 1.47x the mass beyond R; the tail of
  // N(0, 1.5^2) beyond the same threshold has a different shape.
  const double r = 3.6541528853610088;
  const std::int64_t n = 100000000;
  std::vector<double> tail, wider_tail;
  std::int64_t wide_count = 0;
  embpriv::Rng rng(12, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const double z = std::fabs(rng.normal());
    if (z > r) tail.push_back(z);
    if (1.03 * z > r) ++wide_count;
    if (1.5 * z > r) wider_tail.push_back(1.5 * z);
  }
  const double p_tail = boost::math::erfc(r / std::sqrt(2.0));
  const double q_r = 0.5 * p_tail;
  auto conditional_cdf = [&](double x) {
    return 1.0 - 0.5 * boost::math::erfc(x / std::sqrt(2.0)) / q_r;
  };
  INFO("draws beyond R: " << tail.size() << " (expected " << p_tail * n << ")");
  CHECK(binomial_consistent(static_cast<std::int64_t>(tail.size()), n, p_tail));
  const embpriv::KsResult shape = embpriv::ks_test(tail, conditional_cdf, kAlpha);
  INFO("D = " << shape.statistic << ", critical " << shape.critical);
  CHECK_FALSE(shape.reject());
  CHECK_FALSE(binomial_consistent(wide_count, n, p_tail));
  CHECK(embpriv::ks_test(wider_tail, conditional_cdf, kAlpha).reject());
}

TEST_CASE("Rng::exponential and Rng::laplace; a 1.03x scale is rejected", "[stat][rng]") {
  // n = 1e6: critical value 0.0027; Exp(1/1.03) is at KS distance 0.0108 from Exp(1), and
  // Laplace(0, 1.03) at 0.0054 from Laplace(0, 1).
  const std::vector<double> e =
      draws(1000000, 13, [](embpriv::Rng& r) { return r.exponential(); });
  CHECK_FALSE(embpriv::ks_test(e, standard_exponential, kAlpha).reject());
  CHECK(embpriv::ks_test(scaled(e, 1.03), standard_exponential, kAlpha).reject());

  const std::vector<double> l = draws(1000000, 14, [](embpriv::Rng& r) { return r.laplace(); });
  CHECK_FALSE(embpriv::ks_test(l, standard_laplace, kAlpha).reject());
  CHECK(embpriv::ks_test(scaled(l, 1.03), standard_laplace, kAlpha).reject());
  // The sign must be a fair coin independent of the magnitude: |L| is Exp(1) on each side.
  std::vector<double> positive, negative;
  for (double v : l) (v >= 0 ? positive : negative).push_back(std::fabs(v));
  CHECK(binomial_consistent(static_cast<std::int64_t>(positive.size()), 1000000, 0.5));
  CHECK_FALSE(embpriv::ks_test(positive, standard_exponential, kAlpha).reject());
  CHECK_FALSE(embpriv::ks_test(negative, standard_exponential, kAlpha).reject());
}

TEST_CASE("Rng::exponential passes 1e8-draw binned chi-square tests; a 1.002x scale fails",
          "[stat][rng]") {
  // As for the normal: widths 0.01 and 0.2 on [0, 12), reject at p < 1e-6. Power: Exp(1/1.002)
  // has noncentrality ~ 1e8 * 0.002^2 * Var(1 - E) = 400.
  BinnedChiSquare fine(0.0, 12.0, 0.01, standard_exponential),
      coarse(0.0, 12.0, 0.2, standard_exponential);
  BinnedChiSquare wide_fine(0.0, 12.0, 0.01, standard_exponential),
      wide_coarse(0.0, 12.0, 0.2, standard_exponential);
  embpriv::Rng rng(17, 0);
  for (std::int64_t i = 0; i < 100000000; ++i) {
    const double e = rng.exponential();
    fine.add(e);
    coarse.add(e);
    wide_fine.add(1.002 * e);
    wide_coarse.add(1.002 * e);
  }
  INFO("p-values: fine " << fine.p_value() << ", coarse " << coarse.p_value() << "; 1.002x: "
                         << wide_fine.p_value() << ", " << wide_coarse.p_value());
  CHECK(fine.p_value() > kAlpha);
  CHECK(coarse.p_value() > kAlpha);
  CHECK(wide_fine.p_value() < kAlpha);
  CHECK(wide_coarse.p_value() < kAlpha);
}

TEST_CASE("Rng::exponential's ziggurat tail has the right mass and shape", "[stat][rng]") {
  // Beyond R = 7.69711747013104972 (mass e^-R = 4.5e-4) the exponential ziggurat returns
  // R + Exp(1). From 1e8 streamed draws (~45,000 beyond R): the count against e^-R (exact
  // binomial interval) and the excess over R against Exp(1) (memorylessness; critical value
  // 0.018). Power: an excess of scale 0.9 is at KS distance 0.039, and Exp(1/1.03) puts 1.25x
  // the mass beyond R.
  const double r = 7.69711747013104972;
  const std::int64_t n = 100000000;
  std::vector<double> excess, short_excess;
  std::int64_t wide_count = 0;
  embpriv::Rng rng(15, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const double e = rng.exponential();
    if (e > r) {
      excess.push_back(e - r);
      short_excess.push_back(0.9 * (e - r));
    }
    if (1.03 * e > r) ++wide_count;
  }
  INFO("draws beyond R: " << excess.size() << " (expected " << std::exp(-r) * n << ")");
  CHECK(binomial_consistent(static_cast<std::int64_t>(excess.size()), n, std::exp(-r)));
  CHECK_FALSE(embpriv::ks_test(excess, standard_exponential, kAlpha).reject());
  CHECK_FALSE(binomial_consistent(wide_count, n, std::exp(-r)));
  CHECK(embpriv::ks_test(short_excess, standard_exponential, kAlpha).reject());
}

TEST_CASE("Rng::gamma and Rng::beta at the shapes Wood's sampler uses; shape x 1.05 is rejected",
          "[stat][rng]") {
  // Wood's step 1 draws Beta((d-1)/2, (d-1)/2) as G_a / (G_a + G_b): shapes 0.5 (d = 2, the
  // U^(1/a) branch), 1, 1.5, 7.5 (d = 16) and 31.5 (d = 64). n = 2e5 per shape (critical value
  // 0.0060); the shape x 1.05 CDFs are at KS distance 0.020 (0.5) up to 0.11 (31.5), and
  // Beta(a, 1.1 a) at 0.031 (0.5) up to 0.077 (7.5) from Beta(a, a).
  for (double shape : {0.5, 1.0, 1.5, 7.5, 31.5}) {
    INFO("shape = " << shape);
    const std::vector<double> g = draws(200000, static_cast<std::uint64_t>(100 * shape),
                                        [&](embpriv::Rng& r) { return r.gamma(shape); });
    CHECK_FALSE(embpriv::ks_test(g, [&](double x) { return x <= 0 ? 0.0 : boost::math::gamma_p(shape, x); },
                                 kAlpha)
                    .reject());
    CHECK(embpriv::ks_test(g, [&](double x) { return x <= 0 ? 0.0 : boost::math::gamma_p(1.05 * shape, x); },
                           kAlpha)
              .reject());
  }
  for (double a : {0.5, 1.5, 7.5}) {
    INFO("a = b = " << a);
    const std::vector<double> b = draws(200000, static_cast<std::uint64_t>(1000 * a),
                                        [&](embpriv::Rng& r) { return r.beta(a, a); });
    auto beta_cdf = [](double a_, double b_) {
      return [=](double x) { return x <= 0 ? 0.0 : x >= 1 ? 1.0 : boost::math::ibeta(a_, b_, x); };
    };
    CHECK_FALSE(embpriv::ks_test(b, beta_cdf(a, a), kAlpha).reject());
    // Broken: Beta(a, 1.1 a), the law of G_a / (G_a + G_{1.1 a}).
    CHECK(embpriv::ks_test(b, beta_cdf(a, 1.1 * a), kAlpha).reject());
  }
}
