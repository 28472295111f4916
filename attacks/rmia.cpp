#include "attacks/rmia.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"

namespace embpriv {
namespace {

void check_probabilities(const at::Tensor& p, const char* what) {
  EMBPRIV_CHECK(at::isfinite(p).all().item<bool>() && (p > 0).all().item<bool>() && (p <= 1).all().item<bool>(),
                "rmia: " << what << " must be probabilities in (0, 1]");
}

// The paper's offline Pr(x): ((1 + a) Pr_OUT(x) + (1 - a)) / 2.
at::Tensor offline_marginal(const at::Tensor& mean_out, double a) { return ((1 + a) * mean_out + (1 - a)) / 2; }

}  // namespace

at::Tensor rmia_dominance(const at::Tensor& ratio_x, const at::Tensor& ratio_z, double gamma, bool break_ties) {
  const at::Tensor x = ratio_x.to(at::kDouble).reshape({-1}).contiguous();
  const at::Tensor z = ratio_z.to(at::kDouble).reshape({-1}).contiguous();
  EMBPRIV_CHECK(z.numel() >= 1, "rmia: the population is empty");
  const std::int64_t N = x.numel(), P = z.numel();
  const double* xp = x.data_ptr<double>();
  const double* zp = z.data_ptr<double>();
  at::Tensor score = at::empty({N}, at::kDouble);
  double* sp = score.data_ptr<double>();
  for (std::int64_t i = 0; i < N; ++i) {
    // Score_MIA, pair by pair: LR(x, z) = ratio_x / ratio_z, compared with gamma as written.
    std::int64_t dominated = 0;
    for (std::int64_t j = 0; j < P; ++j) dominated += xp[i] / zp[j] >= gamma ? 1 : 0;
    if (!break_ties) {
      sp[i] = static_cast<double>(dominated) / static_cast<double>(P);
    } else {
      // The count is non-decreasing in ratio_x, and so is ratio_x / (1 + ratio_x) in [0, 1):
      // candidates of one count are ordered by ratio_x, and no candidate passes the next count.
      sp[i] = (static_cast<double>(dominated) + xp[i] / (1 + xp[i])) / static_cast<double>(P);
    }
  }
  return score;
}

RmiaScores rmia_scores(const at::Tensor& target_probability, const at::Tensor& reference_probability,
                       const at::Tensor& reference_in, const at::Tensor& population_target,
                       const at::Tensor& population_reference, const RmiaParameters& parameters) {
  EMBPRIV_CHECK(std::isfinite(parameters.gamma) && parameters.gamma > 0,
                "attack.rmia_gamma must be finite and > 0, got " << parameters.gamma);
  EMBPRIV_CHECK(parameters.offline_a >= 0 && parameters.offline_a <= 1,
                "attack.rmia_offline_a must be in [0, 1], got " << parameters.offline_a);
  const at::Tensor px = target_probability.to(at::kDouble).reshape({-1});
  const at::Tensor ref = reference_probability.to(at::kDouble);
  const at::Tensor pz = population_target.to(at::kDouble).reshape({-1});
  const at::Tensor ref_z = population_reference.to(at::kDouble);
  const std::int64_t N = px.numel(), P = pz.numel();
  EMBPRIV_CHECK(ref.dim() == 2 && ref.size(0) >= 1 && ref.size(1) == N && reference_in.sizes() == ref.sizes(),
                "rmia: reference probabilities and memberships must be [S, " << N << "] with S >= 1");
  EMBPRIV_CHECK(P >= 1 && ref_z.dim() == 2 && ref_z.size(0) == ref.size(0) && ref_z.size(1) == P,
                "rmia: population probabilities must be [" << ref.size(0) << ", P] with P >= 1");
  check_probabilities(px, "target probabilities");
  check_probabilities(ref, "reference probabilities");
  check_probabilities(pz, "population target probabilities");
  check_probabilities(ref_z, "population reference probabilities");

  // Online: Pr(x) is the mean over all reference models (in and out alike); every z is out of
  // every model, so Pr(z) is the mean over all of them too.
  const at::Tensor online_x = ref.mean(0), online_z = ref_z.mean(0);
  // Offline: the mean over the models without x, then the linear approximation.
  const at::Tensor out = 1 - reference_in.to(at::kDouble);
  const at::Tensor n_out = out.sum(0);
  const double global_out = ((ref * out).sum() / out.sum().clamp_min(1)).item<double>();
  const at::Tensor mean_out_x =
      at::where(n_out > 0, (ref * out).sum(0) / n_out.clamp_min(1), at::full_like(n_out, global_out));
  const double a = parameters.offline_a;

  RmiaScores r;
  r.online = rmia_dominance(px / online_x, pz / online_z, parameters.gamma, parameters.break_ties);
  r.offline = rmia_dominance(px / offline_marginal(mean_out_x, a), pz / offline_marginal(online_z, a),
                             parameters.gamma, parameters.break_ties);
  return r;
}

}  // namespace embpriv
