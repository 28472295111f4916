#include "accounting/pld_accountant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "accounting/privacy_loss_distribution.h"
#include "core/error.h"

namespace embpriv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The coarse pass's grid: this many points over the widest one-round range.
constexpr double kCoarsePoints = 4096;
// The concentration term t of the lower bound, as a fraction of the coarse eps0.
constexpr double kConcentrationFraction = 0.003;
// The most points a composed window of the final pass may have, and a one-round grid.
constexpr double kMaxWindowPoints = 1 << 22;
constexpr double kMaxRoundPoints = 1 << 23;

constexpr double kCoarseWindow = 1 << 16;

using Part = std::pair<const PrivacyLoss*, std::int64_t>;

// The variance of one round's discretised loss (its finite part).
double loss_variance(const PrivacyLoss& loss, double step, double round_tail) {
  return finite_loss_variance(connect_the_dots(loss, step, round_tail));
}

struct DirectionResult {
  EpsilonBracket bracket;
  double step = 0;
  std::int64_t points = 0;
};

// The bracket on the grid of `step`. The first call (*tilt < 0) picks the composition's tilt,
// which later calls reuse (it is a property of the losses, not of the grid).
EpsilonBracket bracket_at(const std::vector<Part>& parts, double step, double delta, double round_tail, double* tilt,
                          std::int64_t* points) {
  std::vector<DiscretePld> discrete;
  discrete.reserve(parts.size());
  for (const auto& [loss, rounds] : parts) discrete.push_back(connect_the_dots(*loss, step, round_tail));
  PldParts composed_parts;
  for (std::size_t i = 0; i < parts.size(); ++i) composed_parts.emplace_back(&discrete[i], parts[i].second);
  if (*tilt < 0) *tilt = composition_tilt(composed_parts, delta);
  // The window's two tails: 1e-4 delta each.
  const ComposedPld pld = compose(composed_parts, 1e-4 * delta, *tilt);
  *points = static_cast<std::int64_t>(pld.pmf.size());
  return epsilon_bracket(pld, delta);
}

DirectionResult account_direction(const std::vector<Part>& parts, double delta) {
  double rounds = 0;
  for (const auto& part : parts) rounds += static_cast<double>(part.second);
  // Each round's grid drops at most 1e-4 delta / n on each side (into the bounds, not lost).
  const double round_tail = 1e-4 * delta / rounds;
  double widest = 0;
  for (const auto& [loss, n] : parts) {
    const LossRange range = privacy_loss_range(*loss, round_tail);
    const double reach = std::max(std::abs(range.low), std::abs(range.high));
    EMBPRIV_CHECK(reach <= kMaxAccountedLoss, "accountant: one round of " << loss->name() << " has privacy loss up to " << reach
                                                                 << " (beyond " << kMaxAccountedLoss
                                                                 << "): the noise is too small to account for");
    widest = std::max(widest, std::max(range.high - range.low, 1e-12));
  }
  // Coarse pass: eps0, an upper bound. Its step: kCoarsePoints over the widest round, or wider
  // where the sum's spread (measured on that grid) would need more than kCoarseWindow points.
  double coarse = widest / kCoarsePoints;
  double variance = 0;
  for (const auto& [loss, n] : parts) variance += static_cast<double>(n) * loss_variance(*loss, coarse, round_tail);
  coarse = std::max(coarse, 32 * std::sqrt(variance) / kCoarseWindow);
  DirectionResult result;
  result.step = coarse;
  double tilt = -1;
  const EpsilonBracket first = bracket_at(parts, coarse, delta, round_tail, &tilt, &result.points);
  result.bracket = first;
  if (first.upper == 0 || !std::isfinite(first.upper)) return result;
  // Final pass: t = h sqrt(n log(1 / delta_error) / 2) = 0.3% of eps0 (epsilon_bracket's delta_error).
  double step = kConcentrationFraction * first.upper / std::sqrt(rounds * std::log(1 / (1e-3 * delta)) / 2);
  step = std::max(step, coarse * static_cast<double>(result.points) / kMaxWindowPoints);
  step = std::max(step, widest / kMaxRoundPoints);
  if (step >= coarse) return result;
  result.step = step;
  result.bracket = bracket_at(parts, step, delta, round_tail, &tilt, &result.points);
  return result;
}

void check_delta(double delta) {
  EMBPRIV_CHECK(delta > 0 && delta < 1, "accountant: delta must be in (0, 1), got " << delta);
  EMBPRIV_CHECK(delta >= kMinAccountedDelta, "accountant: delta " << delta << " is below the smallest the PLD accountant resolves ("
                                                                  << kMinAccountedDelta << ")");
}

// The unsampled Gaussian parts composed into one round of the Gaussian of sum_i n_i / sigma_i^2
// = 1 / sigma^2 (Dong, Roth & Su 2022, Cor. 3.3: T rounds of sigma are one of sigma / sqrt(T)),
// exactly; the other parts as they are.
std::vector<PldRounds> compose_gaussians_exactly(const std::vector<PldRounds>& parts, std::ostringstream& names) {
  std::vector<PldRounds> out;
  double mu_squared = 0;
  for (const PldRounds& part : parts) {
    names << (names.tellp() > 0 ? " + " : "") << part.rounds << " x " << part.remove->name();
    if (part.gaussian_noise_multiplier > 0) {
      mu_squared += static_cast<double>(part.rounds) / (part.gaussian_noise_multiplier * part.gaussian_noise_multiplier);
    } else {
      out.push_back(part);
    }
  }
  if (mu_squared > 0) {
    const double sigma = 1 / std::sqrt(mu_squared);
    EMBPRIV_CHECK(sigma > 0 && std::isfinite(sigma), "accountant: the Gaussian rounds' noise is too small to account for ("
                                                         << names.str() << ")");
    std::shared_ptr<const PrivacyLoss> loss = gaussian_privacy_loss(sigma);
    out.push_back({loss, loss, 1, sigma});
    names << " (the Gaussians composed exactly: one Gaussian(sigma " << sigma << "))";
  }
  return out;
}

void check_rounds(std::int64_t rounds) { EMBPRIV_CHECK(rounds >= 1, "accountant: rounds must be >= 1, got " << rounds); }

}  // namespace

PldAccount pld_account(const std::vector<PldRounds>& parts, double delta) {
  check_delta(delta);
  EMBPRIV_CHECK(!parts.empty(), "accountant: nothing to account");
  for (const PldRounds& part : parts) {
    EMBPRIV_ASSERT(part.remove && part.add, "pld_account: a part without its privacy loss");
    check_rounds(part.rounds);
  }
  std::ostringstream names;
  const std::vector<PldRounds> accounted = compose_gaussians_exactly(parts, names);
  std::vector<Part> remove, add;
  bool symmetric = true;
  for (const PldRounds& part : accounted) {
    remove.emplace_back(part.remove.get(), part.rounds);
    add.emplace_back(part.add.get(), part.rounds);
    symmetric = symmetric && part.remove == part.add;
  }
  PldAccount account;
  const DirectionResult r = account_direction(remove, delta);
  account.epsilon = r.bracket.upper;
  account.epsilon_lower = r.bracket.lower;
  account.step = r.step;
  account.grid_points = r.points;
  if (!symmetric) {
    // Both neighbours: the guarantee is the worse one, and so are both bounds of it.
    const DirectionResult a = account_direction(add, delta);
    account.epsilon = std::max(account.epsilon, a.bracket.upper);
    account.epsilon_lower = std::max(account.epsilon_lower, a.bracket.lower);
    account.step = std::min(account.step, a.step);
    account.grid_points = std::max(account.grid_points, a.points);
  }
  std::ostringstream method;
  method << "PLD (connect-the-dots grid of step " << account.step << ", FFT composition"
         << (symmetric ? "" : ", worse of add and remove") << "): " << names.str();
  account.method = method.str();
  return account;
}

PldRounds gaussian_rounds(double noise_multiplier, std::int64_t rounds) {
  std::shared_ptr<const PrivacyLoss> loss = gaussian_privacy_loss(noise_multiplier);
  return {loss, loss, rounds, noise_multiplier};
}

PldRounds subsampled_gaussian_rounds(double noise_multiplier, double sampling_rate, std::int64_t rounds) {
  EMBPRIV_CHECK(sampling_rate > 0 && sampling_rate <= 1, "accountant: the sampling rate must be in (0, 1], got " << sampling_rate);
  if (sampling_rate == 1) return gaussian_rounds(noise_multiplier, rounds);
  return {subsampled_gaussian_privacy_loss(noise_multiplier, sampling_rate, Neighbour::remove),
          subsampled_gaussian_privacy_loss(noise_multiplier, sampling_rate, Neighbour::add), rounds};
}

PldRounds laplace_rounds(double epsilon, std::int64_t rounds) {
  std::shared_ptr<const PrivacyLoss> loss = laplace_privacy_loss(epsilon);
  return {loss, loss, rounds};
}

PldAccount gaussian_pld_account(double noise_multiplier, std::int64_t rounds, double delta) {
  return pld_account({gaussian_rounds(noise_multiplier, rounds)}, delta);
}

PldAccount subsampled_gaussian_pld_account(double noise_multiplier, double sampling_rate, std::int64_t rounds,
                                           double delta) {
  return pld_account({subsampled_gaussian_rounds(noise_multiplier, sampling_rate, rounds)}, delta);
}

PldAccount laplace_pld_account(double epsilon, std::int64_t rounds, double delta) {
  return pld_account({laplace_rounds(epsilon, rounds)}, delta);
}

}  // namespace embpriv
