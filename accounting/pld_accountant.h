#pragma once
// The privacy-loss-distribution accountant: a guaranteed bracket [lower, upper] on the total eps
// at delta of rounds of Gaussian, Poisson-subsampled Gaussian and Laplace mechanisms, alone or
// mixed (accounting/privacy_loss_distribution.h has the method and its references). The grid
// step is chosen per question: a coarse pass gives eps0, then the step that makes the
// concentration term of the lower bound 0.3% of eps0, so the bracket is about 0.5% of eps wide.
// The bracket holds for every delta in [1e-200, 1) (the composition is exponentially tilted to
// the delta asked for; below 1e-200 it is refused). docs/accounting.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "accounting/privacy_loss.h"

namespace embpriv {

struct PldAccount {
  double epsilon = 0;         // guaranteed upper bound on the total eps at delta
  double epsilon_lower = 0;   // guaranteed lower bound (the true eps is in [epsilon_lower, epsilon])
  double step = 0;            // the loss grid's step h
  std::int64_t grid_points = 0;  // the largest composed window of the final pass
  std::string method;
};

// One kind of round and how often it runs. `remove` and `add` are its privacy losses for the two
// neighbours (the same object for a symmetric mechanism); the account is the worse of the two.
struct PldRounds {
  std::shared_ptr<const PrivacyLoss> remove, add;
  std::int64_t rounds = 1;
  // > 0 for the unsampled Gaussian of this noise multiplier: pld_account composes all of those
  // exactly into one round (mu-GDP composes as sqrt(sum mu_i^2), Dong, Roth & Su 2022, Cor. 3.3)
  // before the rest, so their rounds cost no grid error however many they are.
  double gaussian_noise_multiplier = 0;
};

// The smallest delta the accountant takes: its tails are held as doubles (1e-308 at the least)
// after division by the rounds.
constexpr double kMinAccountedDelta = 1e-200;
// The largest privacy loss of one round (after the unsampled Gaussians are composed into one)
// that is accounted: beyond it eps would exceed 1e12.
constexpr double kMaxAccountedLoss = 1e12;

// Every part composed (in any order: composition commutes) at total delta in [1e-200, 1).
PldAccount pld_account(const std::vector<PldRounds>& parts, double delta);

// The rounds of one mechanism, the building blocks for pld_account.
PldRounds gaussian_rounds(double noise_multiplier, std::int64_t rounds);
// q = 1 is the plain Gaussian.
PldRounds subsampled_gaussian_rounds(double noise_multiplier, double sampling_rate, std::int64_t rounds);
PldRounds laplace_rounds(double epsilon, std::int64_t rounds);

// T rounds of one mechanism.
PldAccount gaussian_pld_account(double noise_multiplier, std::int64_t rounds, double delta);
PldAccount subsampled_gaussian_pld_account(double noise_multiplier, double sampling_rate, std::int64_t rounds,
                                           double delta);
PldAccount laplace_pld_account(double epsilon, std::int64_t rounds, double delta);

}  // namespace embpriv
