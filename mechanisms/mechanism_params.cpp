#include "mechanisms/mechanism_params.h"

namespace embpriv {
namespace {

// The keys every mechanism has: the system budget and the text/visual split (vMF paper, Def. 6.1).
constexpr const char* kEpsilonHelp = "the privacy budget of visual rows (the system budget)";
constexpr const char* kAlphaHelp = "text rows use eps_text = alpha * eps (vMF paper, Def. 6.1)";

}  // namespace

const ParamTable<DirectionParams>& DirectionParams::table() {
  static const ParamTable<DirectionParams> keys =
      ParamTable<DirectionParams>()
          .number("epsilon", &DirectionParams::epsilon, std::nullopt, ParamRange::positive, kEpsilonHelp)
          .number("beta", &DirectionParams::beta, 1.0, ParamRange::positive,
                  "the scale of the angle metric: kappa = eps / beta")
          .number("alpha", &DirectionParams::alpha, 1.0, ParamRange::positive, kAlphaHelp);
  return keys;
}

const ParamTable<GaussianParams>& GaussianParams::table() {
  static const ParamTable<GaussianParams> keys =
      ParamTable<GaussianParams>()
          .number("epsilon", &GaussianParams::epsilon, std::nullopt, ParamRange::positive, kEpsilonHelp)
          .number("delta", &GaussianParams::delta, 1e-5, ParamRange::unit_open, "the delta of (eps, delta)-DP")
          .number("clip_norm", &GaussianParams::clip_norm, std::nullopt, ParamRange::positive,
                  "C: rows are clipped to L2 norm C, the sensitivity (always explicit)")
          .choice("calibration", &GaussianParams::calibration, "analytic", {"classic", "analytic"},
                  &parse_gaussian_calibration,
                  "sigma from Dwork & Roth's classic bound (eps < 1) or Balle & Wang's analytic one")
          .number("alpha", &GaussianParams::alpha, 1.0, ParamRange::positive, kAlphaHelp);
  return keys;
}

const ParamTable<LaplaceParams>& LaplaceParams::table() {
  static const ParamTable<LaplaceParams> keys =
      ParamTable<LaplaceParams>()
          .number("epsilon", &LaplaceParams::epsilon, std::nullopt, ParamRange::positive, kEpsilonHelp)
          .number("clip_norm", &LaplaceParams::clip_norm, std::nullopt, ParamRange::positive,
                  "C: rows are clipped to L1 norm C; the L1 sensitivity is 2C")
          .number("alpha", &LaplaceParams::alpha, 1.0, ParamRange::positive, kAlphaHelp);
  return keys;
}

}  // namespace embpriv
