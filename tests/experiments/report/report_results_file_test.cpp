// Which results files decide a claim: at --scale paper only one the claim's config would write
// today (its config_hash; two configs of one name write the same results/NAME.h5), and an
// incomplete one only where it already holds the rows the rule reads.
#include "tests/catch.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/source_dir.h"
#include "experiments/report/reproduction_report.h"
#include "tests/experiments/report/claims_fixture.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// The fixture's claim with `config:` the CI config, so that --scale paper reads its results.
std::string paper_scale_claims() {
  return test::replaced(test::kOneClaim, "config: configs/paper/vmf_cosine_table.yaml",
                        "config: configs/ci/perturbation_small.yaml");
}

}  // namespace

TEST_CASE("embpriv report --scale paper: a results file of another config of the same name is not read",
          "[report]") {
  TempDir dir("embpriv_report_stale_test");
  const std::filesystem::path claims = dir.path / "claims";
  std::filesystem::create_directories(claims);
  write_file((claims / "x.yaml").string(), paper_scale_claims());
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

TEST_CASE("a rule that selects no row of an incomplete results file is NOT RUN; of a complete one, an error",
          "[report]") {
  // Two rows of mechanism a so far; the rule reads mechanism b, whose rows are not written yet.
  ResultsTable table;
  table.columns = {{"seed", std::vector<std::int64_t>{1, 2}},
                   {"status", std::vector<std::string>{"ok", "ok"}},
                   {"mechanism_name", std::vector<std::string>{"a", "a"}},
                   {"mean_cosine", std::vector<double>{0.5, 0.6}}};
  table.attributes["git_commit"] = "0123456789abcdef0123456789abcdef01234567";
  table.attributes["complete"] = "false";
  Rule rule;
  rule.kind = "within";
  rule.column = "mean_cosine";
  rule.min = 0.4;
  rule.where["mechanism_name"] = ColumnMatch{{"b"}, std::nullopt, std::nullopt};
  Claim claim;
  claim.id = "c";
  claim.source = "x.yaml, claim c";
  claim.config = "configs/paper/x.yaml";
  claim.rule = rule;
  const ClaimVerdict partial = judge_claim(claim, ReportScale::paper, &table, "x.h5");
  CHECK(partial.verdict == "NOT RUN");
  CHECK_THAT(partial.why, Contains("the results file is incomplete"));
  CHECK_THAT(partial.why, Contains("x.yaml, claim c"));

  // The control is read the same way.
  rule.where["mechanism_name"] = ColumnMatch{{"a"}, std::nullopt, std::nullopt};
  claim.rule = rule;
  Rule control = rule;
  control.where["mechanism_name"] = ColumnMatch{{"b"}, std::nullopt, std::nullopt};
  claim.control = control;
  CHECK(judge_claim(claim, ReportScale::paper, &table, "x.h5").verdict == "NOT RUN");
  claim.control.reset();
  CHECK(judge_claim(claim, ReportScale::paper, &table, "x.h5").verdict == "REPRODUCED");

  // A complete file without those rows: the claims file is wrong, one error.
  table.attributes["complete"] = "true";
  claim.rule->where["mechanism_name"] = ColumnMatch{{"b"}, std::nullopt, std::nullopt};
  CHECK_THROWS_AS(judge_claim(claim, ReportScale::paper, &table, "x.h5"), Error);
}
