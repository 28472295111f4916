#pragma once
// The parameters of each mechanism of the default registry (mechanisms/registry.h) as a typed
// struct, and its keys declared once: name, default, help and allowed range (param_spec.h).
#include "mechanisms/gaussian_calibration.h"
#include "mechanisms/param_spec.h"

namespace embpriv {

// vmf_tangent (vMF paper, Algorithm 1) and vmf (Wood 1994): kappa = eps / beta.
struct DirectionParams {
  double epsilon = 0;
  double beta = 0;
  double alpha = 0;
  static const ParamTable<DirectionParams>& table();
};

// gaussian and npgaussian: clip to L2 norm C, noise calibrated to (eps, delta) (vMF paper,
// Def. 7.1 and 7.3).
struct GaussianParams {
  double epsilon = 0;
  double delta = 0;
  double clip_norm = 0;
  GaussianCalibration calibration = GaussianCalibration::analytic;
  double alpha = 0;
  static const ParamTable<GaussianParams>& table();
};

// laplace: clip to L1 norm C, Laplace(0, 2C/eps) per coordinate.
struct LaplaceParams {
  double epsilon = 0;
  double clip_norm = 0;
  double alpha = 0;
  static const ParamTable<LaplaceParams>& table();
};

}  // namespace embpriv
