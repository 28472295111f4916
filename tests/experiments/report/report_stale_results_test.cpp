// `embpriv report --scale paper` reads a results file only when the config the claim names
// would write it today (its config_hash): two configs of one name write the same
// results/NAME.h5, and a file of the other one must not decide the claim.
#include "tests/catch.h"

#include <filesystem>
#include <string>

#include "core/source_dir.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// A claim on configs/ci/perturbation_small.yaml read at paper scale (`config:` is that file).
const std::string kClaims = R"(paper: vmf
title: t
paper_file: p.txt
claims:
  - id: c1
    where: Thm 5.1
    claim: norms kept
    paper_value: "1"
    config: configs/ci/perturbation_small.yaml
    rule: {kind: within, column: mean_norm_ratio, value: 1, tolerance: 1.0e-5, where: {mechanism_name: vmf_tangent}}
)";

}  // namespace

TEST_CASE("embpriv report --scale paper: a results file of another config of the same name is not read",
          "[report]") {
  TempDir dir("embpriv_report_stale_test");
  const std::filesystem::path claims = dir.path / "claims";
  std::filesystem::create_directories(claims);
  write_file((claims / "x.yaml").string(), kClaims);
  const std::string config = std::string(source_dir()) + "/configs/ci/perturbation_small.yaml";
  const std::string results = dir / "perturbation_small.h5", out = dir / "report.md";
  const std::string report = "report --scale paper --root " + std::string(source_dir()) + " --claims " +
                             claims.string() + " --results " + dir.path.string() + " --out " + out;

  // Written with an override: another config, though the file has the config's name.
  REQUIRE(run_binary("run " + config + " data.samples=40 --out " + results + " --no-plot -q").code == 0);
  REQUIRE(run_binary(report).code == 0);
  std::string text = read_file(out);
  CHECK_THAT(text, Contains("| **NOT RUN**"));
  CHECK_THAT(text, Contains(results + " was written by another config (config_hash "));
  CHECK_THAT(text, Contains("run configs/ci/perturbation_small.yaml again"));
  CHECK_FALSE(text.find("| **REPRODUCED**") != std::string::npos);

  // Written by the config itself (thread count and out do not count): read and decided.
  REQUIRE(run_binary("run " + config + " --threads 1 --out " + results + " --overwrite --no-plot -q").code == 0);
  REQUIRE(run_binary(report).code == 0);
  text = read_file(out);
  CHECK_THAT(text, Contains("| **REPRODUCED**"));
  CHECK_FALSE(text.find("was written by another config") != std::string::npos);
}
