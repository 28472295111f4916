#pragma once
// The keys of experiment type `audit` (audit_experiment.cpp), declared once and read through
// these typed keys by the settings, the memory estimate and the figures.
#include <cmath>
#include <cstdint>

#include "experiments/engine/typed_key.h"

namespace embpriv {

// audit.break: the mechanism as claimed, or a deliberately broken one audited against the
// unbroken claim (the audit's test of itself, GUIDE.md sec. 4.7).
enum class AuditBreak { none, halve_noise };

namespace audit_key {

inline const Key<std::int64_t> kDim =
    integer_key("data.dim", 16, "dimension of the two audited inputs").at_least(2).at_most(65536);
inline const Key<std::int64_t> kTrials =
    integer_key("audit.trials", 20000, "mechanism runs per input, in each half (selection, measurement)")
        .at_least(10);
inline const Key<double> kDistance =
    number_key("audit.distance", "0.5",
               "the angle in radians between the two directions (mechanisms whose claim is on directions)")
        .above(0)
        .at_most(M_PI);
inline const Key<double> kConfidence = number_key("audit.confidence", "0.95", "of the lower bound").above(0).below(1);
inline const ChoiceKey<AuditBreak> kBreak =
    choice_key("audit.break", AuditBreak::none, {{AuditBreak::none, "none"}, {AuditBreak::halve_noise, "halve_noise"}},
               "halve_noise: a deliberately broken mechanism, audited against the unbroken claim");

}  // namespace audit_key
}  // namespace embpriv
