#include "experiments/types/shared/claim_columns.h"

namespace embpriv {

std::vector<std::string> with_claim_number_columns(std::vector<std::string> columns) {
  for (const char* c : {"epsilon_actual", "calibration_valid", "sigma", "sensitivity"}) columns.emplace_back(c);
  return columns;
}

std::vector<std::string> with_claim_string_columns(std::vector<std::string> columns) {
  columns.emplace_back("epsilon_actual_source");
  return columns;
}

void set_claim_columns(PointResult& result, const PrivacyClaim& claim) {
  result.set("epsilon_actual", claim.epsilon_actual);
  // A relative margin of 1e-9 absorbs the bisections' last bits (analytic calibration).
  result.set("calibration_valid", claim.epsilon_actual <= claim.epsilon * (1 + 1e-9) ? 1.0 : 0.0);
  result.set("sigma", claim.sigma);
  result.set("sensitivity", claim.l2_sensitivity);
  result.set("epsilon_actual_source", claim.epsilon_actual_source);
}

}  // namespace embpriv
