#pragma once
// The keys of experiment type `perturbation` (perturbation_experiment.cpp), declared once and
// read through these typed keys by the settings and the memory estimate.
#include <cstdint>
#include <string>

#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv::perturbation_key {

inline const Key<std::string> kSource =
    text_key("data.source", "random_directions", "directions uniform on the sphere").one_of({"random_directions"});
inline const Key<std::int64_t>& kDim = kRandomInputDimKey;
inline const Key<std::int64_t> kSamples = integer_key("data.samples", 20000, "rows per grid point").at_least(2);
inline const Key<double> kNormMin =
    number_key("data.norm_min", "0.5", "input norms log-uniform in [norm_min, norm_max]").above(0);
inline const Key<double> kNormMax = number_key("data.norm_max", "2.0", "the largest input norm (>= data.norm_min)");
inline const Key<double> kTextFraction =
    number_key("data.text_fraction", "0.0", "share of rows tagged text: eps_text = alpha * eps (vMF paper, Def. 6.1)")
        .at_least(0)
        .at_most(1);

}  // namespace embpriv::perturbation_key
