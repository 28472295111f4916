#pragma once
// Experiment type `perturbation`: one mechanism on seeded random directions of dimension d;
// reports the cosine, angle and norm statistics of y = M(x) next to the vMF paper's theory
// (Cor. 5.2 cosine of Algorithm 1, A_d(kappa) of exact vMF, Thm 5.4 norm inflation), overall and
// per modality for the alpha budget split (Def. 6.1).
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_perturbation_experiment();

}  // namespace embpriv
