#pragma once
// Experiment type `audit`: the empirical-epsilon lower bound of a mechanism (attacks/audit.h)
// next to the epsilon it claims for the same two inputs: two unit directions at angle
// `audit.distance` for the direction mechanisms (vmf: kappa * t; vmf_tangent: the vMF paper's
// eps * t), or x0 = C e1 and x1 = -C e1 at the clipping norm C for gaussian, laplace and
// npgaussian. `audit.break: halve_noise` audits a deliberately broken version (additive noise
// halved, or the direction mechanisms run at 2 eps) against the unbroken claim.
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_audit_experiment();

}  // namespace embpriv
