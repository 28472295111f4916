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

// T rounds of the Poisson-subsampled Gaussian (rate q in (0, 1]): T times the integer-order
// RDP of MTZ 2019, converted at delta, minimised over alpha = 2, ..., 512 (integer orders only:
// the fractional-order series of MTZ Sec. 3.3 is not implemented, so the bound can be slightly
// looser than one minimised over all real alpha). q = 1 is exact at integer orders.
RdpAccount subsampled_gaussian_rdp_account(double noise_multiplier, double sampling_rate, std::int64_t rounds,
                                           double delta);

// The integer orders subsampled_gaussian_rdp_account tries.
std::vector<std::int64_t> integer_rdp_orders();

}  // namespace embpriv
