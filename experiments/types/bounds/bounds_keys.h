#pragma once
// The keys of experiment type `bounds` (bounds_experiment.cpp), declared once and read through
// these typed keys by the settings and the memory estimate.
#include <cstdint>

#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv::bounds_key {

inline const Key<std::int64_t>& kDim = kRandomInputDimKey;
inline const Key<std::int64_t> kSamples =
    integer_key("data.samples", 20000, "inputs per setting: norms log-uniform in [0.25, 4], partners at cosine 0.2-0.9")
        .at_least(100);
inline const Key<double> kEpsilonPerDimension =
    number_key("epsilon_per_dimension", "0",
               "> 0: the mechanism's epsilon is this times d (exact vMF where A_d(kappa) is far from 0)")
        .at_least(0);
inline const Key<double> kNoiseShare =
    number_key("noise_share", "0",
               "> 0: the epsilon whose Gaussian noise norm sigma sqrt(d) is this share of the clip norm (Prop. 7.1; "
               "analytic calibration)")
        .at_least(0);
inline const Key<double> kConfidence =
    number_key("confidence", "0.999", "family-wise over every interval check of the complete run (Bonferroni)")
        .above(0)
        .below(1);

}  // namespace embpriv::bounds_key
