#pragma once
// One small claims file for the report's tests (claims_test.cpp, report_results_file_test.cpp),
// and the edit they make of it.
#include <string>

#include "tests/catch.h"

namespace embpriv::test {

// One claim on Thm 5.1, read from configs/ci/perturbation_small.yaml at CI size.
inline const std::string kOneClaim = R"(paper: vmf
title: t
paper_file: p.txt
claims:
  - id: c1
    where: Thm 5.1
    claim: norms kept
    paper_value: "1"
    config: configs/paper/vmf_cosine_table.yaml
    ci_config: configs/ci/perturbation_small.yaml
    rule: {kind: within, column: mean_norm_ratio, value: 1, tolerance: 1.0e-5, where: {mechanism_name: vmf_tangent}}
    expected_ci: REPRODUCED
)";

// `text` with its first `from` replaced by `to` (`from` must occur).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace embpriv::test
