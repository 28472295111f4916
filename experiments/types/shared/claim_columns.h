#pragma once
// The columns a mechanism's privacy claim adds to a results row (experiment types perturbation,
// inversion, mia): the eps the noise really gives next to the eps requested, and what it rests
// on (mechanisms/mechanism.h, PrivacyClaim::epsilon_actual). Gaussian rows store sigma and Delta2,
// so that every privacy number of the row can be recomputed from them (docs/accounting.md).
#include <string>
#include <vector>

#include "experiments/engine/experiment_type.h"
#include "mechanisms/mechanism.h"

namespace embpriv {

// `columns` followed by epsilon_actual, calibration_valid, sigma, sensitivity.
std::vector<std::string> with_claim_number_columns(std::vector<std::string> columns);
// `columns` followed by epsilon_actual_source.
std::vector<std::string> with_claim_string_columns(std::vector<std::string> columns);

// calibration_valid is 1 when the noise gives at most the claimed eps (epsilon_actual <= claim's
// epsilon), 0 when it gives more or nothing finite.
void set_claim_columns(PointResult& result, const PrivacyClaim& claim);

}  // namespace embpriv
