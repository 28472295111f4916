#pragma once
// The exact (eps, delta) curve of the Gaussian mechanism y = f(x) + N(0, sigma^2 I) with L2
// sensitivity Delta2 (Balle & Wang 2018, Thm 8), and the standard normal CDF in log space that
// it needs. Both mechanisms/ (calibrating sigma from eps) and accounting/ (the eps of a
// composition) use it; neither may include the other, so it lives here, once.
namespace embpriv {

// log Phi(x) for the standard normal CDF, accurate in the far left tail (x down to -1e150).
double log_normal_cdf(double x);

// The delta that noise sigma achieves at eps (Balle & Wang 2018, Thm 8):
//   Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta).
double analytic_gaussian_delta(double epsilon, double sigma, double l2_sensitivity);

// The smallest eps >= 0 at which noise sigma gives (eps, delta)-DP (the inverse of the above in
// eps; bisection to double precision). 0 when sigma already gives (0, delta)-DP; throws
// embpriv::Error when the eps would exceed 1e12.
double analytic_gaussian_epsilon(double sigma, double delta, double l2_sensitivity);

}  // namespace embpriv
