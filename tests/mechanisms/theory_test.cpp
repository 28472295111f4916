// Tests of mechanisms/theory.h: the vMF paper's closed forms and the mean resultant length
// A_d(kappa) = I_{d/2}(kappa) / I_{d/2-1}(kappa).
#include "mechanisms/theory.h"

#include <boost/math/special_functions/bessel.hpp>
#include "tests/catch.h"
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"

namespace {

double relative_error(double value, double reference) {
  return std::fabs(value - reference) / std::fabs(reference);
}

// A log grid from lo to hi (inclusive) with `per_decade` points per factor of 10.
std::vector<double> log_grid(double lo, double hi, int per_decade) {
  std::vector<double> grid;
  const int steps = static_cast<int>(std::ceil(std::log10(hi / lo) * per_decade));
  for (int i = 0; i <= steps; ++i) grid.push_back(lo * std::pow(hi / lo, double(i) / steps));
  return grid;
}

}  // namespace

TEST_CASE("vmf_mean_resultant matches the Boost Bessel ratio for d <= 200, kappa <= 300",
          "[theory]") {
  // Boost's cyl_bessel_i is accurate here as long as neither value under- or overflows; the
  // cases where I_{d/2-1} underflows (high order, tiny kappa) are skipped and counted.
  int compared = 0;
  for (std::int64_t d = 2; d <= 200; d += (d < 20 ? 1 : 9)) {
    for (double kappa : log_grid(1e-3, 300.0, 4)) {
      const double nu = 0.5 * static_cast<double>(d);
      const double numerator = boost::math::cyl_bessel_i(nu, kappa);
      const double denominator = boost::math::cyl_bessel_i(nu - 1.0, kappa);
      if (!(numerator > 1e-280 && denominator < 1e280)) continue;
      const double reference = numerator / denominator;
      INFO("d = " << d << ", kappa = " << kappa);
      CHECK(relative_error(embpriv::vmf_mean_resultant(d, kappa), reference) < 1e-13);
      ++compared;
    }
  }
  CHECK(compared > 500);  // the skip rule must not hollow the test out
}

TEST_CASE("vmf_mean_resultant matches 40-digit mpmath values far outside Boost's range",
          "[theory]") {
  // Reference values: mpmath besseli(d/2, kappa) / besseli(d/2 - 1, kappa) at 40 significant
  // digits (identical at 80), computed once with mpmath 1.3.0.
  struct Case {
    std::int64_t d;
    double kappa;
    double reference;
  };
  const Case cases[] = {
      {2, 1e-06, 4.9999999999993747737e-7},   {2, 1.0, 0.44638996589653450705},
      {2, 1e8, 0.9999999949999999875},        {3, 0.5, 0.16395341373865284877},
      {16, 20.0, 0.68709220894493632536},     {64, 5.0, 0.07766785138010066549},
      {300, 1000.0, 0.86155031551856448163},  {768, 50.0, 0.064831232920861869531},
      {768, 1e4, 0.96238324822513730709},     {768, 1e8, 0.99999616500733443757},
      {1000, 1e3, 0.61818681291010495934},    {4096, 100.0, 0.024399534982850465719},
      {4096, 1e6, 0.99795459510427537217},    {16384, 1e-06, 6.1035156249999997238e-11},
      {16384, 100.0, 0.0061032882960096250814}, {16384, 2e4, 0.67104471260386409902},
      {16384, 1e8, 0.99991808835462406542},
  };
  for (const Case& c : cases) {
    INFO("d = " << c.d << ", kappa = " << c.kappa);
    const double a = embpriv::vmf_mean_resultant(c.d, c.kappa);
    CHECK(relative_error(a, c.reference) < 1e-15);
    // Near 1, also the distance to 1 is accurate (absolute error of a few 1e-17).
    CHECK(std::fabs((1.0 - a) - (1.0 - c.reference)) < 2e-16);
  }
  // Boost itself gives 0 / 0 or 0 at such orders (GUIDE.md, sec. 5), which is why the
  // implementation does not use it: I_2047(100) underflows.
  CHECK(boost::math::cyl_bessel_i(2047.0, 100.0) == 0.0);
}

TEST_CASE("vmf_mean_resultant follows its small-kappa series", "[theory]") {
  // I_nu(x) = (x/2)^nu / Gamma(nu+1) (1 + x^2 / (4 (nu+1)) + O(x^4)) (A&S 9.6.10) gives
  // A_d(kappa) = kappa/d (1 - kappa^2 / (d (d+2))) + O(kappa^5 / d^3).
  for (std::int64_t d : {2, 3, 10, 100, 768, 4096, 16384}) {
    for (double kappa : {1e-6, 1e-5, 1e-4}) {
      const double dd = static_cast<double>(d);
      const double series = kappa / dd * (1.0 - kappa * kappa / (dd * (dd + 2.0)));
      INFO("d = " << d << ", kappa = " << kappa);
      CHECK(relative_error(embpriv::vmf_mean_resultant(d, kappa), series) < 1e-14);
    }
  }
}

TEST_CASE("vmf_mean_resultant follows its large-kappa expansion", "[theory]") {
  // Hankel's expansion (A&S 9.7.1) gives
  // 1 - A_d(kappa) = (d-1)/(2 kappa) - (d-1)(d-3)/(8 kappa^2) + O(d^3 / kappa^3).
  for (std::int64_t d : {2, 3, 10, 100, 768, 4096, 16384}) {
    for (double kappa : {1e7, 1e8}) {
      const double dd = static_cast<double>(d);
      const double one_minus =
          (dd - 1.0) / (2.0 * kappa) - (dd - 1.0) * (dd - 3.0) / (8.0 * kappa * kappa);
      const double computed = 1.0 - embpriv::vmf_mean_resultant(d, kappa);
      INFO("d = " << d << ", kappa = " << kappa);
      // The third term is below d^3 / (8 kappa^3); 1 - A itself carries an absolute rounding
      // error of a few 1e-17 (see the S_u = 1 - R_u phase in theory.cpp).
      const double bound = dd * dd * dd / (8.0 * kappa * kappa * kappa) + 2e-16;
      CHECK(std::fabs(computed - one_minus) < bound);
      // The first-order form the brief states, A ~ 1 - (d-1)/(2 kappa), to relative O(d/kappa).
      CHECK(relative_error(computed, (dd - 1.0) / (2.0 * kappa)) < dd / (2.0 * kappa) + 1e-6);
    }
  }
  // d = 3 is elementary: A_3(kappa) = coth(kappa) - 1/kappa (Langevin function).
  for (double kappa : {0.5, 1.0, 3.0, 10.0, 100.0, 1e4}) {
    INFO("kappa = " << kappa);
    CHECK(relative_error(embpriv::vmf_mean_resultant(3, kappa),
                         1.0 / std::tanh(kappa) - 1.0 / kappa) < 1e-13);
  }
}

TEST_CASE("vmf_mean_resultant is finite, in (0, 1), increasing, within the Amos bounds",
          "[theory]") {
  // A log grid of d in [2, 16384] and kappa in [1e-6, 1e8]. Amos (1974): for v >= 0,
  // x / (v + 1/2 + sqrt((v + 3/2)^2 + x^2)) <= I_{v+1}(x) / I_v(x)
  //                                         <= x / (v + 1/2 + sqrt((v + 1/2)^2 + x^2)),
  // and A_d(kappa) is that ratio at v = d/2 - 1.
  int points = 0;
  for (double d_real : log_grid(2.0, 16384.0, 6)) {
    const std::int64_t d = static_cast<std::int64_t>(std::llround(d_real));
    const double v = 0.5 * static_cast<double>(d) - 1.0;
    double previous = 0.0;
    for (double kappa : log_grid(1e-6, 1e8, 3)) {
      const double a = embpriv::vmf_mean_resultant(d, kappa);
      INFO("d = " << d << ", kappa = " << kappa << ", A = " << a);
      REQUIRE(std::isfinite(a));
      CHECK(a > 0.0);
      CHECK(a < 1.0);
      CHECK(a > previous);
      const double x = kappa;
      const double lower = x / (v + 0.5 + std::sqrt((v + 1.5) * (v + 1.5) + x * x));
      const double upper = x / (v + 0.5 + std::sqrt((v + 0.5) * (v + 0.5) + x * x));
      CHECK(a >= lower * (1.0 - 1e-14));
      CHECK(a <= upper * (1.0 + 1e-14));
      previous = a;
      ++points;
    }
  }
  CHECK(points > 1000);
}

TEST_CASE("vmf_mean_resultant keeps the continued fraction bit for bit up to kappa = 1e9",
          "[theory]") {
  // The switch to the expansion happens only where the continued fraction would take more than
  // kMaxContinuedFractionSteps = 2^18 steps, i.e. kappa > (2^36 + d 2^18) / 60 >= 1.1e9.
  for (double d_real : log_grid(2.0, 1e6, 2)) {
    const std::int64_t d = static_cast<std::int64_t>(std::llround(d_real));
    for (double kappa : log_grid(1e-6, 1e9, 2)) {
      INFO("d = " << d << ", kappa = " << kappa);
      CHECK(embpriv::vmf_mean_resultant(d, kappa) ==
            embpriv::vmf_mean_resultant_continued_fraction(d, kappa));
    }
  }
  // Beyond the switch, the expansion is used.
  CHECK(embpriv::vmf_mean_resultant(768, 1e12) == embpriv::vmf_mean_resultant_asymptotic(768, 1e12));
}

TEST_CASE("vmf_mean_resultant's large-kappa expansion agrees with the continued fraction",
          "[theory]") {
  // Overlap range: kappa in [1e6, 1e11] (the continued fraction takes up to 2.4e6 steps there,
  // 10 ms), d from 2 to 1e5 with (d - 1) / kappa <= 1e-3 (the expansion's domain). The
  // continued fraction's 1 - A carries an absolute error of a few 1e-17 (theory.cpp, S_u
  // phase); the expansion's 1 - A a relative one of a few 1e-16 (measured against mpmath: at
  // most 2.6e-16, below). With 1 - A <= 5e-4 here, the two must agree to
  // 5e-17 + 3e-16 * (1 - A) <= 2e-16 absolute, one ulp of A in [0.5, 1). Measured: the two
  // give the same double at every point of this grid.
  int compared = 0;
  for (std::int64_t d : {2, 3, 7, 10, 100, 768, 4096, 16384, 100000}) {
    for (double kappa : log_grid(1e6, 1e11, 2)) {
      if (static_cast<double>(d - 1) > 1e-3 * kappa) continue;
      const double by_fraction = embpriv::vmf_mean_resultant_continued_fraction(d, kappa);
      const double by_expansion = embpriv::vmf_mean_resultant_asymptotic(d, kappa);
      INFO("d = " << d << ", kappa = " << kappa << ", 1 - A = " << 1.0 - by_fraction);
      CHECK(std::fabs((1.0 - by_expansion) - (1.0 - by_fraction)) <= 2e-16);
      ++compared;
    }
  }
  CHECK(compared > 80);
}

TEST_CASE("vmf_mean_resultant matches mpmath at kappa far beyond the continued fraction",
          "[theory]") {
  // Reference values of 1 - A_d(kappa): mpmath 1.3.0, 1 - besseli(d/2, kappa) /
  // besseli(d/2 - 1, kappa) at 60 digits (120 at kappa = 1e50, 360 at kappa = 1e300), printed
  // to 25 digits. Before the expansion, kappa = 1e17 took minutes (2.4e9 continued-fraction
  // steps). A near 1 is stored to ulp(1 - 1e-13) = 1.1e-16, so 1 - A can only be as accurate as
  // that absolutely: we require |(1 - A) - reference| <= 2e-16 (the rounding of A, 1.1e-16 at
  // most, plus the expansion's own error, at most 2.6e-16 relative to 1 - A <= 5e-7 here).
  struct Case {
    std::int64_t d;
    double kappa;
    double one_minus_a;
  };
  const Case cases[] = {
      {2, 1e12, 5.000000000001250000000001e-13},    {2, 1e17, 5.0000000000000000125e-18},
      {2, 1e20, 5.0000000000000000000125e-21},      {2, 1e50, 5.0e-51},
      {2, 1e300, 5.0e-301},                          {3, 1e12, 1.0e-12},
      {3, 1e17, 1.0e-17},                            {3, 1e20, 1.0e-20},
      {768, 1e12, 3.834999999266556249999267e-10},   {768, 1e17, 3.8349999999999926655625e-15},
      {768, 1e20, 3.834999999999999992665562e-18},   {768, 1e50, 3.835e-48},
      {768, 1e300, 3.835e-298},                      {16384, 1e12, 8.191499966453759624966454e-9},
      {16384, 1e17, 8.19149999999966453759625e-14},  {16384, 1e20, 8.191499999999999664537596e-17},
      {16384, 1e50, 8.1915e-47},                     {16384, 1e300, 8.1915e-297},
      {1000000, 1e12, 4.999993750004999995078129e-7}, {1000000, 1e17, 4.999994999987500049999962e-12},
      {1000000, 1e20, 4.99999499999998750005e-15},   {1000000, 1e50, 4.999995e-45},
      {1000000, 1e300, 4.999995e-295},
  };
  for (const Case& c : cases) {
    INFO("d = " << c.d << ", kappa = " << c.kappa);
    const double a = embpriv::vmf_mean_resultant(c.d, c.kappa);
    CHECK(std::fabs((1.0 - a) - c.one_minus_a) <= 2e-16);
  }
}

TEST_CASE("vmf_mean_resultant never runs the long continued fraction: above its step limit it is the expansion", "[theory]") {
  // Before the expansion, one call at kappa = 1e14 took about a second and at 1e17 minutes
  // (the continued fraction takes ~sqrt(60 kappa) steps). Where that count passes
  // kMaxContinuedFractionSteps, the value must be the expansion's, bit for bit: no loop of
  // more than 2^18 steps can run, whatever the machine's speed (no wall clock in this test).
  for (std::int64_t d : {2, 768, 16384, 1000000}) {
    for (double kappa : {1e12, 1e14, 1e17, 1e20, 1e100, 1e300, 1.7e308}) {
      INFO("d = " << d << ", kappa = " << kappa);
      const double a = embpriv::vmf_mean_resultant(d, kappa);
      if (std::sqrt(60.0 * kappa) > embpriv::kMaxContinuedFractionSteps + static_cast<double>(d)) {
        CHECK(a == embpriv::vmf_mean_resultant_asymptotic(d, kappa));
      }
      CHECK(std::isfinite(a));
      CHECK(a > 0.0);
      CHECK(a <= 1.0);
    }
  }
}

TEST_CASE("vmf_mean_resultant rejects bad parameters", "[theory]") {
  CHECK_THROWS_AS(embpriv::vmf_mean_resultant(1, 1.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::vmf_mean_resultant(3, 0.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::vmf_mean_resultant(3, -1.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::vmf_mean_resultant(3, std::numeric_limits<double>::quiet_NaN()),
                  embpriv::Error);
  CHECK_THROWS_WITH(embpriv::vmf_mean_resultant(3, std::numeric_limits<double>::infinity()),
                    Catch::Contains("kappa"));
}

TEST_CASE("Algorithm 1's cosine and angle reproduce the vMF paper's Cor. 5.2 table",
          "[theory]") {
  // Cor. 5.2, beta = 1: eps -> cos(theta) (as printed, 3 significant digits) and theta in
  // degrees (1 decimal). The tolerance is half a unit of the last printed digit.
  struct Row {
    double epsilon, cosine, cosine_half_unit, degrees;
  };
  const Row table[] = {
      {0.1, 0.0995, 0.00005, 84.3}, {0.2, 0.196, 0.0005, 78.7}, {0.5, 0.447, 0.0005, 63.4},
      {1.0, 0.707, 0.0005, 45.0},   {2.0, 0.894, 0.0005, 26.6}, {5.0, 0.981, 0.0005, 11.3},
  };
  for (const Row& row : table) {
    INFO("eps = " << row.epsilon);
    CHECK(std::fabs(embpriv::expected_cosine_tangent(1.0, row.epsilon) - row.cosine) <=
          row.cosine_half_unit);
    const double degrees = embpriv::deflection_angle_tangent(1.0, row.epsilon) * 180.0 / M_PI;
    CHECK(std::fabs(degrees - row.degrees) <= 0.05);
    // The two functions describe the same angle.
    CHECK(std::cos(embpriv::deflection_angle_tangent(1.0, row.epsilon)) ==
          Approx(embpriv::expected_cosine_tangent(1.0, row.epsilon)).epsilon(1e-14));
  }
  // Only the ratio beta / eps matters (Prop. 3.1).
  CHECK(embpriv::expected_cosine_tangent(2.0, 4.0) == embpriv::expected_cosine_tangent(1.0, 2.0));
  CHECK_THROWS_AS(embpriv::expected_cosine_tangent(0.0, 1.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::deflection_angle_tangent(1.0, -1.0), embpriv::Error);
}

TEST_CASE("Thm 5.3 and Thm 5.4 factors", "[theory]") {
  // Algorithm 1: cos^2(theta) = 1 / (1 + (beta/eps)^2); beta = 1, eps = 1 gives 1/2.
  CHECK(embpriv::dot_product_factor_tangent(1.0, 1.0) == Approx(0.5).epsilon(1e-15));
  CHECK(embpriv::dot_product_factor_tangent(1.0, 2.0) == Approx(0.8).epsilon(1e-15));
  // Exact vMF: A_d(kappa)^2; d = 3 has the closed form coth(k) - 1/k.
  const double a3 = 1.0 / std::tanh(2.0) - 0.5;
  CHECK(embpriv::dot_product_factor_vmf(3, 2.0) == Approx(a3 * a3).epsilon(1e-13));
  // Thm 5.4 and its Laplace analogue.
  CHECK(embpriv::gaussian_expected_squared_norm(4.0, 768, 0.5) == 4.0 + 768 * 0.25);
  CHECK(embpriv::laplace_expected_squared_norm(4.0, 768, 0.5) == 4.0 + 2 * 768 * 0.25);
  CHECK_THROWS_AS(embpriv::gaussian_expected_squared_norm(-1.0, 10, 1.0), embpriv::Error);
  CHECK_THROWS_AS(embpriv::laplace_expected_squared_norm(1.0, 10, 0.0), embpriv::Error);
}
