#pragma once
// Privacy loss distributions (PLD) on a grid, their composition by FFT, and the (eps, delta)
// bracket they give. docs/accounting.md.
//
// One round: the loss L of a mechanism (accounting/privacy_loss.h) is discretised on the grid
// l_j = j h by connect the dots (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the
// dots", Sec. 3): each loss v in (l_j, l_(j+1)] is split between l_j and l_(j+1) so that both
// its P-mass and its Q-mass are kept. The result is again a pair of distributions (P', Q') that
// dominates (P, Q) (P, Q is a post-processing of it), so every composition of it bounds the true
// one from above: the pessimistic estimate. The losses above the grid go to +inf and those
// below it up to its lowest point, both pessimistic (tails accounted).
//
// T rounds: the loss of the composition is the sum of the rounds' losses (Meiser & Mohammadi
// 2018), so its PMF is the convolution of theirs: the product of their discrete Fourier
// transforms (Koskela, Jaelkoe & Honkela 2020), each raised to its number of rounds by repeated
// squaring, on a window [a, b] of the sum that holds all but a Chernoff-bounded mass.
//
// The lower bound: with the split above, the discretised loss Y of a round and the true X differ
// by less than one step h, and E[Y - X | X] is in [0, b(h)] with b(h) <= h^2 / 8 (the split keeps
// E[e^-Y] = e^-X). By the Azuma-Hoeffding inequality the sum over n rounds satisfies
// S_Y - S_X < n b(h) + t with probability >= 1 - e^(-2 t^2 / (n h^2)) (the concentration argument
// of Gopi, Lee & Wutschitz 2021, Thm 5.5, applied to this coupling). Hence
//   delta_true(eps) >= delta_Y(eps + n b(h) + t) - e^(-2 t^2 / (n h^2)) - P(some round truncated),
// and eps_true >= eps_Y(delta + those masses) - n b(h) - t: a guaranteed lower bound.
//
// Small delta: the FFT's rounding is about 1e-16 of the largest mass per point, far above a
// delta of 1e-13, so an untilted composition reads noise where the tail should be (the bracket
// then missed the exact value at delta <= 1e-12). The composition therefore runs on the
// exponentially tilted PMFs p_k e^(lambda l_k) / M(lambda) (convolution commutes with tilting:
// the sum's tilted PMF is the convolution of the rounds' tilted PMFs), with lambda the Chernoff
// tilt that centres the sum near eps(delta) (`composition_tilt`), and untilts the result:
// p_k = y_k e^(n log M(lambda) - lambda l_k). Near eps the tilted PMF is of order 1, so its
// rounding stays 1e-16 of delta, not of 1. What rounding remains is bounded per point
// (`pmf_rounding`: the componentwise error of a radix-2 FFT, Higham 2002, Sec. 24.1, through the
// n-th powers) and added to the upper bound's PMF and taken from the lower bound's.
#include <cstdint>
#include <utility>
#include <vector>

#include "accounting/privacy_loss.h"

namespace embpriv {

// One round's PMF on the grid: the loss of pmf[k] is (offset + k) step.
struct DiscretePld {
  double step = 0;
  std::int64_t offset = 0;
  std::vector<double> pmf;
  double infinity_mass = 0;   // P-mass at loss +inf (L above the grid)
  double truncated_mass = 0;  // P(L outside the grid): rounds where Y - X may exceed one step
};

// [lo, hi] with P(L <= lo) <= tail_mass and P(L > hi) <= tail_mass (bisection on the tails,
// to 1e-9 relative).
struct LossRange {
  double low = 0, high = 0;
};
LossRange privacy_loss_range(const PrivacyLoss& loss, double tail_mass);

// The connect-the-dots PMF of `loss` on the grid of `step`, over the losses whose tails
// (P(L > hi), P(L <= lo)) are above `tail_mass` each.
DiscretePld connect_the_dots(const PrivacyLoss& loss, double step, double tail_mass);

// The variance of a round's discretised finite loss (0 where it has no finite mass).
double finite_loss_variance(const DiscretePld& d);

// The composition of rounds: parts[i].first run parts[i].second times (all on the same step).
struct ComposedPld {
  double step = 0;
  std::int64_t offset = 0;     // the loss of pmf[k] is (offset + k) step
  std::vector<double> pmf;     // the window [a, b] of the sum of the finite losses
  double infinity_mass = 0;    // 1 - prod (1 - infinity_mass_i)^(rounds_i)
  double mass_above = 0;       // Chernoff bound on the finite mass above the window (aliased into it)
  double mass_below = 0;       // the same below the window
  double rounds = 0;           // n, the number of rounds composed
  double truncated_mass = 0;   // sum rounds_i truncated_mass_i (union bound)
  double tilt = 0;             // the lambda the FFT ran at (0: untilted)
  std::vector<double> pmf_rounding;  // per point: |pmf computed - pmf exact| <= this (floating point)
};

using PldParts = std::vector<std::pair<const DiscretePld*, std::int64_t>>;

// The window holds all but `tail_mass` of the sum on each side (Chernoff bounds), and, at a
// tilt > 0, all but tail_mass of what the tilted sum folds back into it after untilting.
ComposedPld compose(const PldParts& parts, double tail_mass, double tilt = 0);

// The tilt of the sum at delta: the lambda > 0 that minimises the Chernoff-type bound on
// eps(delta), (K(lambda) - log delta - lambda log(1 + 1 / lambda) - log(1 + lambda)) / lambda with
// K(lambda) = sum n_i log M_i(lambda). The tilted sum is centred near eps(delta).
double composition_tilt(const PldParts& parts, double delta);

// delta(eps) = infinity_mass + sum_k pmf[k] (1 - e^(eps - l_k))_+ (the hockey-stick divergence of
// the discrete pair, Koskela et al. 2020, eq. (6)); pmf_rounding is not in it.
double hockey_stick_delta(const ComposedPld& pld, double epsilon);

// The smallest eps >= 0 with hockey_stick_delta(pld, eps) <= delta (solved exactly between grid
// points); +inf when the infinity mass alone exceeds delta.
double epsilon_at_delta(const ComposedPld& pld, double delta);

// The largest mean bias E[Y - X | X] of the connect-the-dots split on a grid of `step`:
// max over u in [0, h] of h (1 - e^-u) / (1 - e^-h) - u (<= h^2 / 8).
double connect_the_dots_bias(double step);

struct EpsilonBracket {
  double lower = 0;  // eps_true >= lower (the concentration bound above)
  double upper = 0;  // eps_true <= upper (the dominating pair, its window's tail added to delta)
};

// Both bounds from one composed PLD at `delta`; the Azuma term uses delta_error = `delta` x 1e-3.
// The upper bound reads pmf + pmf_rounding (capped at 1), the lower one pmf - pmf_rounding (at
// least 0): both stay on their side of the exact composition whatever the rounding.
EpsilonBracket epsilon_bracket(const ComposedPld& pld, double delta);

}  // namespace embpriv
