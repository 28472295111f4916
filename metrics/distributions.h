#pragma once
// CDFs of the marginals that the statistical tests compare samples with.
#include <cstdint>
#include <vector>

namespace embpriv {

// w = mu^T z for z ~ vMF(mu, kappa) on S^{d-1}: density proportional to
// exp(kappa w) (1 - w^2)^((d-3)/2) on [-1, 1] (Wood 1994). The CDF at sorted points is computed
// by adaptive quadrature of the log-scaled density between consecutive points.
std::vector<double> vmf_marginal_cdf(std::int64_t d, double kappa,
                                     const std::vector<double>& sorted_w);

// One coordinate t = e^T u of u uniform on the unit sphere S^{m-1} of R^m (m >= 2):
// (t + 1) / 2 ~ Beta((m-1)/2, (m-1)/2).
double sphere_coordinate_cdf(std::int64_t m, double t);

double standard_normal_cdf(double x);
// Laplace(0, b).
double laplace_cdf(double x, double b);

}  // namespace embpriv
