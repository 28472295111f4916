#pragma once
// One-sample Kolmogorov-Smirnov test against a continuous CDF, with the critical value from the
// Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant (1990):
// P(D_n > c) <= 2 exp(-2 n c^2) for every n, so c = sqrt(ln(2/alpha) / (2n)) gives a test whose
// false-alarm rate is at most alpha (no asymptotics).
#include <cstdint>
#include <functional>
#include <vector>

namespace embpriv {

struct KsResult {
  double statistic;  // D_n = sup |F_n(t) - F(t)|
  double critical;   // reject when statistic > critical
  std::int64_t n;
  bool reject() const { return statistic > critical; }
};

double ks_critical_value(std::int64_t n, double alpha);

// cdf is evaluated at every sample (in sorted order).
KsResult ks_test(std::vector<double> samples, const std::function<double(double)>& cdf,
                 double alpha);

// Same, with a CDF evaluated once for all sorted samples (for CDFs computed by quadrature).
KsResult ks_test_sorted_cdf(std::vector<double> samples,
                            const std::function<std::vector<double>(const std::vector<double>&)>&
                                cdf_of_sorted,
                            double alpha);

}  // namespace embpriv
