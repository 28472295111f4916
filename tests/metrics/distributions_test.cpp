// Tests of metrics/distributions.h: the CDFs the statistical tests compare samples with.
#include "metrics/distributions.h"

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/special_functions/bessel.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <algorithm>
#include "tests/catch.h"
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "mechanisms/theory.h"

namespace {

// An independent reference for the vMF marginal CDF when d >= 4: tanh-sinh quadrature of the
// density in w itself (not in the angle, as the implementation does), scaled by its value at
// the mode w* = 2 kappa / ((d-3) + sqrt((d-3)^2 + 4 kappa^2)) (the root of
// kappa (1 - w^2) = (d-3) w), with the integral split at w*.
class ReferenceMarginal {
 public:
  ReferenceMarginal(std::int64_t d, double kappa)
      : kappa_(kappa), half_power_(0.5 * static_cast<double>(d - 3)) {
    const double p = static_cast<double>(d - 3);
    mode_ = 2.0 * kappa / (p + std::sqrt(p * p + 4 * kappa * kappa));
    log_at_mode_ = kappa * mode_ + half_power_ * std::log1p(-mode_ * mode_);
    total_ = integral(-1.0, 1.0);
  }
  double cdf(double w) const { return integral(-1.0, w) / total_; }

 private:
  double density(double t) const {
    const double one_minus_t2 = (1.0 - t) * (1.0 + t);
    if (one_minus_t2 <= 0.0) return 0.0;  // the endpoints themselves (measure zero)
    return std::exp(kappa_ * t + half_power_ * std::log(one_minus_t2) - log_at_mode_);
  }
  double integral(double a, double b) const {
    boost::math::quadrature::tanh_sinh<double> integrator;
    // The two-argument form (abscissa, distance to the nearest end): Boost 1.74's one-argument
    // form can trip its own BOOST_ASSERT(position != a) when an abscissa rounds onto an end.
    auto f = [this](double t, double) { return density(t); };
    if (a < mode_ && mode_ < b) {
      return integrator.integrate(f, a, mode_, 1e-14) + integrator.integrate(f, mode_, b, 1e-14);
    }
    return b > a ? integrator.integrate(f, a, b, 1e-14) : 0.0;
  }
  double kappa_, half_power_, mode_, log_at_mode_, total_;
};

// d = 2: theta = acos(w) has density exp(kappa cos(theta)) / (pi I_0(kappa)) on [0, pi], and
// exp(kappa cos(t)) = I_0(kappa) + 2 sum_k I_k(kappa) cos(k t) (A&S 9.6.34) integrates to
// P(W <= w) = 1 - (theta I_0 + 2 sum_k I_k sin(k theta) / k) / (pi I_0), theta = acos(w).
double circle_marginal_cdf(double kappa, double w) {
  const double theta = std::acos(w);
  const double i0 = boost::math::cyl_bessel_i(0, kappa);
  double partial = theta * i0;
  for (int k = 1; k < 100000; ++k) {
    const double ik = boost::math::cyl_bessel_i(k, kappa);
    partial += 2.0 * ik * std::sin(k * theta) / k;
    if (k > kappa && ik < 1e-18 * i0) break;
  }
  return 1.0 - partial / (M_PI * i0);
}

std::vector<double> grid(double lo, double hi, int n) {
  std::vector<double> points;
  for (int i = 0; i < n; ++i) points.push_back(lo + (hi - lo) * i / (n - 1));
  return points;
}

}  // namespace

TEST_CASE("vmf_marginal_cdf matches the closed form for d = 3", "[distributions]") {
  // d = 3: the density of w is proportional to exp(kappa w) on [-1, 1] (Archimedes), so
  // F(w) = (exp(kappa (w - 1)) - exp(-2 kappa)) / (1 - exp(-2 kappa)).
  for (double kappa : {0.1, 1.0, 10.0, 100.0, 1000.0}) {
    const std::vector<double> w = {-1.0, -0.9, -0.3, 0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0};
    const std::vector<double> cdf = embpriv::vmf_marginal_cdf(3, kappa, w);
    for (std::size_t i = 0; i < w.size(); ++i) {
      const double exact = -std::expm1(-kappa * (w[i] + 1.0)) * std::exp(kappa * (w[i] - 1.0)) /
                           -std::expm1(-2.0 * kappa);
      INFO("kappa = " << kappa << ", w = " << w[i]);
      CHECK(std::fabs(cdf[i] - exact) < 1e-14);
    }
  }
}

TEST_CASE("vmf_marginal_cdf matches tanh-sinh quadrature in w for d from 4 to 256",
          "[distributions]") {
  for (std::int64_t d : {4, 5, 16, 64, 256}) {
    for (double kappa : {0.1, 2.0, 20.0, 300.0, 1000.0}) {
      const ReferenceMarginal reference(d, kappa);
      const std::vector<double> w = grid(-0.999, 0.999, 41);
      const std::vector<double> cdf = embpriv::vmf_marginal_cdf(d, kappa, w);
      for (std::size_t i = 0; i < w.size(); ++i) {
        INFO("d = " << d << ", kappa = " << kappa << ", w = " << w[i]);
        CHECK(std::fabs(cdf[i] - reference.cdf(w[i])) < 1e-13);
      }
    }
  }
}

TEST_CASE("vmf_marginal_cdf matches the Fourier-Bessel series for d = 2", "[distributions]") {
  // d = 2 is where the density of w has integrable singularities at +-1; the implementation
  // integrates in the angle, where there are none.
  for (double kappa : {0.1, 2.0, 20.0, 300.0}) {
    const std::vector<double> w = {-1.0, -0.999999, -0.9, -0.3, 0.0, 0.5, 0.9, 0.99, 0.999999, 1.0};
    const std::vector<double> cdf = embpriv::vmf_marginal_cdf(2, kappa, w);
    for (std::size_t i = 0; i < w.size(); ++i) {
      INFO("kappa = " << kappa << ", w = " << w[i]);
      CHECK(std::fabs(cdf[i] - circle_marginal_cdf(kappa, w[i])) < 1e-14);
    }
  }
}

TEST_CASE("vmf_marginal_cdf's mean is A_d(kappa)", "[distributions]") {
  // E[w] = int_{-1}^{1} (1 - F(w)) dw - 1 = 1 - int F, and E[w] = A_d(kappa) (theory.h): a
  // cross-check of the quadrature against the Bessel continued fraction. int F is taken as
  // int_0^pi F(cos t) sin t dt (smooth even for d = 2, where F ~ sqrt(1 + w) at -1) by a
  // composite 10-point Gauss-Legendre rule on 4000 panels, all nodes in one batched call.
  using Rule = boost::math::quadrature::gauss<double, 10>;
  const int panels = 4000;
  const double h = M_PI / panels;
  std::vector<double> theta, weight;
  for (int p = 0; p < panels; ++p) {
    const double mid = (p + 0.5) * h;
    for (std::size_t j = 0; j < Rule::abscissa().size(); ++j) {
      for (double sign : {-1.0, 1.0}) {
        if (Rule::abscissa()[j] == 0.0 && sign > 0) continue;  // a central node only once
        theta.push_back(mid + sign * 0.5 * h * Rule::abscissa()[j]);
        weight.push_back(0.5 * h * Rule::weights()[j]);
      }
    }
  }
  // w = cos(theta) increases as theta decreases: evaluate in reverse order.
  std::vector<double> w(theta.size());
  for (std::size_t i = 0; i < theta.size(); ++i) w[i] = std::cos(theta[theta.size() - 1 - i]);
  std::vector<std::size_t> order(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return w[a] < w[b]; });
  std::vector<double> sorted_w(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) sorted_w[i] = w[order[i]];
  for (std::int64_t d : {2, 3, 10, 64, 256}) {
    for (double kappa : {0.5, 10.0, 100.0, 1000.0}) {
      const std::vector<double> cdf = embpriv::vmf_marginal_cdf(d, kappa, sorted_w);
      double integral_of_cdf = 0.0;
      for (std::size_t i = 0; i < w.size(); ++i) {
        const std::size_t node = theta.size() - 1 - order[i];  // back to the theta index
        integral_of_cdf += weight[node] * cdf[i] * std::sin(theta[node]);
      }
      INFO("d = " << d << ", kappa = " << kappa);
      CHECK(std::fabs((1.0 - integral_of_cdf) - embpriv::vmf_mean_resultant(d, kappa)) < 1e-13);
    }
  }
}

TEST_CASE("vmf_marginal_cdf is monotone, batch-independent and exact at the ends",
          "[distributions]") {
  const std::vector<double> w = grid(-1.0, 1.0, 2001);
  const std::vector<double> cdf = embpriv::vmf_marginal_cdf(64, 5.0, w);
  CHECK(cdf.front() == 0.0);
  CHECK(cdf.back() == 1.0);
  for (std::size_t i = 1; i < w.size(); ++i) REQUIRE(cdf[i] >= cdf[i - 1]);
  // One point at a time gives the same values up to the order of summation.
  for (std::size_t i : {1u, 700u, 1000u, 1500u, 1999u}) {
    CHECK(std::fabs(embpriv::vmf_marginal_cdf(64, 5.0, {w[i]})[0] - cdf[i]) < 1e-14);
  }
  // Ties and values rounded a few ulps past 1 are accepted.
  const std::vector<double> ties = embpriv::vmf_marginal_cdf(16, 20.0, {0.5, 0.5, 1.0 + 1e-15});
  CHECK(ties[0] == ties[1]);
  CHECK(ties[2] == 1.0);
  // kappa = 0 is the uniform distribution: sphere_coordinate_cdf(d, w).
  for (double t : {-0.7, 0.0, 0.3}) {
    CHECK(std::fabs(embpriv::vmf_marginal_cdf(16, 0.0, {t})[0] -
                    embpriv::sphere_coordinate_cdf(16, t)) < 1e-14);
  }
}

TEST_CASE("vmf_marginal_cdf rejects bad input", "[distributions]") {
  CHECK_THROWS_WITH(embpriv::vmf_marginal_cdf(8, 1.0, {0.5, 0.2}), Catch::Contains("sorted"));
  CHECK_THROWS_WITH(embpriv::vmf_marginal_cdf(8, 1.0, {1.5}), Catch::Contains("[-1, 1]"));
  CHECK_THROWS_AS(embpriv::vmf_marginal_cdf(8, 1.0, {std::nan("")}), embpriv::Error);
  CHECK_THROWS_AS(embpriv::vmf_marginal_cdf(1, 1.0, {0.0}), embpriv::Error);
  CHECK_THROWS_AS(embpriv::vmf_marginal_cdf(8, -1.0, {0.0}), embpriv::Error);
  CHECK(embpriv::vmf_marginal_cdf(8, 1.0, {}).empty());
}

TEST_CASE("sphere_coordinate_cdf matches the closed forms for m = 2, 3, 4", "[distributions]") {
  for (double t : {-0.99, -0.5, -0.1, 0.0, 0.25, 0.8, 0.999}) {
    INFO("t = " << t);
    // m = 2: the arcsine law; m = 3: uniform on [-1, 1] (Archimedes); m = 4: the semicircle.
    CHECK(std::fabs(embpriv::sphere_coordinate_cdf(2, t) - (0.5 + std::asin(t) / M_PI)) < 1e-15);
    CHECK(std::fabs(embpriv::sphere_coordinate_cdf(3, t) - 0.5 * (1.0 + t)) < 1e-15);
    CHECK(std::fabs(embpriv::sphere_coordinate_cdf(4, t) -
                    (0.5 + (t * std::sqrt(1.0 - t * t) + std::asin(t)) / M_PI)) < 1e-15);
  }
  CHECK(embpriv::sphere_coordinate_cdf(100, -1.0) == 0.0);
  CHECK(embpriv::sphere_coordinate_cdf(100, 1.0) == 1.0);
  CHECK(embpriv::sphere_coordinate_cdf(100, 0.0) == Approx(0.5).epsilon(1e-15));
  CHECK_THROWS_AS(embpriv::sphere_coordinate_cdf(1, 0.0), embpriv::Error);
}

TEST_CASE("standard_normal_cdf and laplace_cdf", "[distributions]") {
  CHECK(embpriv::standard_normal_cdf(0.0) == 0.5);
  CHECK(embpriv::standard_normal_cdf(1.9599639845400536) == Approx(0.975).epsilon(1e-15));
  // Phi(-10) = 7.619853024160526e-24 (mpmath, 30 digits): the left tail keeps full precision.
  CHECK(embpriv::standard_normal_cdf(-10.0) == Approx(7.619853024160526e-24).epsilon(1e-14));
  CHECK(embpriv::laplace_cdf(0.0, 2.0) == 0.5);
  CHECK(embpriv::laplace_cdf(2.0 * std::log(2.0), 2.0) == Approx(0.75).epsilon(1e-15));
  CHECK(embpriv::laplace_cdf(-3.0, 3.0) == Approx(0.5 * std::exp(-1.0)).epsilon(1e-15));
  CHECK_THROWS_AS(embpriv::laplace_cdf(0.0, 0.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::standard_normal_cdf(std::nan("")), embpriv::Error);
}
