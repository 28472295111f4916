#pragma once
// Renyi differential privacy (Mironov 2017) of the Gaussian mechanism, plain and Poisson-
// subsampled, composed over rounds and converted to (eps, delta)-DP. The Gaussian mechanism
// here is f(x) + N(0, (sigma Delta2)^2 I): `noise_multiplier` sigma is the noise's standard
// deviation in units of the L2 sensitivity Delta2. docs/accounting.md.
#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

// RDP of order alpha > 1 of one Gaussian mechanism: alpha / (2 sigma^2) (Mironov 2017,
// Prop. 7).
double gaussian_rdp(double alpha, double noise_multiplier);

// RDP of order alpha (an integer >= 2) of the Poisson-subsampled Gaussian mechanism, each
// record in the batch with probability q (Mironov, Talwar & Zhang 2019, Sec. 3.3, integer
// alpha): (1 / (alpha - 1)) log sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k
// exp((k^2 - k) / (2 sigma^2)), summed in log space. q = 1 gives gaussian_rdp.
double subsampled_gaussian_rdp(std::int64_t alpha, double sampling_rate, double noise_multiplier);

// The same at any real order alpha > 1 (MTZ 2019, Sec. 3.3, fractional alpha): A_alpha =
// A_1 + A_2, two series over i >= 0 of generalised binomials C(alpha, i) with erfc tails split
// at z0 = sigma^2 ln(1/q - 1) + 1/2, summed in log space until a term falls below e^-30
// relative to 1. At an integer alpha it equals subsampled_gaussian_rdp.
double subsampled_gaussian_rdp_real(double alpha, double sampling_rate, double noise_multiplier);

// The tight RDP-to-DP conversion (Balle et al. 2020, Thm 21; Canonne, Kamath & Steinke 2020,
// Prop. 12): an (alpha, rdp)-RDP mechanism is (eps, delta)-DP for
//   eps = rdp + log((alpha - 1) / alpha) - (log delta + log alpha) / (alpha - 1),
// clamped at 0.
double rdp_to_dp_epsilon(double alpha, double rdp, double delta);

// The earlier conversion (Mironov 2017, Prop. 3): eps = rdp + log(1 / delta) / (alpha - 1),
// never smaller than the tight one; what the moments accountant of Abadi et al. 2016 used.
double rdp_to_dp_epsilon_classic(double alpha, double rdp, double delta);

struct RdpAccount {
  double epsilon = 0;  // the smallest eps over the orders tried
  double alpha = 0;    // the order that gave it
  std::string method;  // e.g. "RDP, Gaussian (continuous alpha), tight conversion"
};

// T rounds of the Gaussian mechanism: RDP T alpha / (2 sigma^2), converted at delta and
// minimised over continuous alpha > 1 (Brent's method on the conversion, which is convex in
// alpha for this curve).
RdpAccount gaussian_rdp_account(double noise_multiplier, std::int64_t rounds, double delta);

// T rounds of the Poisson-subsampled Gaussian (rate q in (0, 1]): T times the RDP of MTZ 2019,
// converted at delta, minimised over the orders of rdp_orders() (the fractional ones through
// the series, the integers through the finite sum).
RdpAccount subsampled_gaussian_rdp_account(double noise_multiplier, double sampling_rate, std::int64_t rounds,
                                           double delta);

// The integer orders 2, ..., 512.
std::vector<std::int64_t> integer_rdp_orders();
// The orders subsampled_gaussian_rdp_account tries: 1.1, 1.2, ..., 1.9, 2.1, ..., 11.9 (every
// step of 0.1 that is not an integer; the fractional ones where the optimum of a small total
// lies), then the integers 2, ..., 512.
std::vector<double> rdp_orders();

}  // namespace embpriv
