#pragma once
// The privacy loss of one mechanism run on two neighbouring inputs: for the pair of output
// distributions (P, Q), the privacy loss random variable is L = log(dP/dQ)(X) with X ~ P
// (Meiser & Mohammadi 2018; Koskela, Jaelkoe & Honkela 2020). Every mechanism here has a loss
// that is monotone in its one-dimensional output, so P(L > v) and Q(L > v) are one CDF each:
// that is all the connect-the-dots discretisation (accounting/privacy_loss_distribution.h)
// needs. All masses are returned as logarithms (they reach 1e-300 in the tails, and the losses
// e^1000 for tiny noise). Sensitivity is 1 throughout: sigma is the noise multiplier, the noise
// standard deviation over the L2 sensitivity. docs/accounting.md.
#include <memory>
#include <string>

namespace embpriv {

// log P(L > v), log P(L <= v), log Q(L > v), log Q(L <= v); -inf for a mass of 0.
struct LossTails {
  double log_p_above = 0, log_p_at_most = 0, log_q_above = 0, log_q_at_most = 0;
};

class PrivacyLoss {
 public:
  virtual ~PrivacyLoss() = default;
  virtual LossTails tails(double v) const = 0;
  virtual std::string name() const = 0;
};

// The Gaussian mechanism: P = N(0, sigma^2), Q = N(1, sigma^2); L = (1 - 2x) / (2 sigma^2), i.e.
// L ~ N(1 / (2 sigma^2), 1 / sigma^2) under P. The pair is symmetric: add and remove give the
// same loss.
std::unique_ptr<PrivacyLoss> gaussian_privacy_loss(double noise_multiplier);

// Which neighbour the subsampled pair describes (Zhu, Dong & Wang 2022; dp_accounting's
// NeighboringRelation): `remove`: P = (1 - q) N(0, sigma^2) + q N(1, sigma^2) against Q = N(0, sigma^2)
// (the batch with the record against the batch without); `add`: the same two the other way round.
// The loss is not symmetric, so an (eps, delta) guarantee for both neighbours is the worse of the two.
enum class Neighbour { remove, add };

// The Poisson-subsampled Gaussian mechanism at rate q in (0, 1) (each record in a round's batch
// with probability q): L = log(1 - q + q e^((2x - 1) / (2 sigma^2))) for `remove`
// (increasing in x, >= log(1 - q)), its negative under P = N(0, sigma^2) for `add`
// (<= -log(1 - q)).
std::unique_ptr<PrivacyLoss> subsampled_gaussian_privacy_loss(double noise_multiplier, double sampling_rate,
                                                              Neighbour neighbour);

// The Laplace mechanism with eps0 = 1 / b (scale b, sensitivity 1): P = Lap(0, b), Q = Lap(1, b);
// L = (|x - 1| - |x|) / b in [-eps0, eps0], with atoms at both ends (P-mass 1/2 at +eps0). Symmetric.
std::unique_ptr<PrivacyLoss> laplace_privacy_loss(double epsilon);

}  // namespace embpriv
