// The claims files (configs/claims/*.yaml): the project's own load, and a bad file is one error
// naming the file and the claim (`embpriv report` exits 2 on it and writes nothing).
#include "tests/catch.h"

#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/source_dir.h"
#include "experiments/report/claims.h"
#include "tests/test_binary.h"
#include "tests/experiments/report/claims_fixture.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using embpriv::test::kOneClaim;
using embpriv::test::replaced;

namespace {

// The error of loading `text` written as the claims file `path` ("no error" when it loads).
std::string load_error(const std::string& path, const std::string& root, const std::string& text) {
  write_file(path, text);
  try {
    load_claims_file(path, root);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

}  // namespace

TEST_CASE("the project's claims files load, every config they name exists, ids are unique", "[report]") {
  const std::string root = source_dir();
  const auto files = load_claims_folder(root + "/configs/claims", root);
  REQUIRE(files.size() == 3);
  std::size_t claims = 0;
  for (const ClaimsFile& file : files) {
    claims += file.claims.size();
    for (const Claim& claim : file.claims) {
      INFO(claim.source);
      CHECK((claim.rule.has_value() || !claim.not_measured.empty()));
      CHECK((claim.ci_config.empty() || !claim.expected_ci.empty()));
    }
  }
  CHECK(claims >= 30);
}

TEST_CASE("a bad claims file: one error naming the file and the claim", "[report]") {
  TempDir dir("embpriv_claims_test");
  const std::string root = source_dir(), path = dir / "bad.yaml";
  write_file(path, kOneClaim);
  CHECK(load_claims_file(path, root).claims.size() == 1);
  const auto error_of = [&](const std::string& text) { return load_error(path, root, text); };
  CHECK_THAT(error_of(replaced(kOneClaim, "    where: Thm 5.1", "    where: Thm 5.1\n    tolerence: 1")),
             Contains(path + ", claim c1: unknown key 'tolerence'"));
  CHECK_THAT(error_of(replaced(kOneClaim, "kind: within", "kind: between")),
             Contains(path + ", claim c1, rule: unknown rule kind 'between'; valid: within, ordering, ratio, monotone, bound, max_gap, matched"));
  CHECK_THAT(error_of(replaced(kOneClaim, "value: 1, tolerance: 1.0e-5", "value: 1")),
             Contains(path + ", claim c1, rule: rule within with value or reference_column needs tolerance"));
  CHECK_THAT(error_of(replaced(kOneClaim, "column: mean_norm_ratio, ", "")),
             Contains(path + ", claim c1, rule: missing key 'column'"));
  CHECK_THAT(error_of(replaced(kOneClaim, "vmf_cosine_table", "vmf_cosine_tabel")),
             Contains(path + ", claim c1: config 'configs/paper/vmf_cosine_tabel.yaml' does not exist"));
  CHECK_THAT(error_of(replaced(kOneClaim, "expected_ci: REPRODUCED", "expected_ci: HOLDS")),
             Contains(path + ", claim c1: expected_ci 'HOLDS' is not a verdict"));
  CHECK_THAT(error_of(replaced(kOneClaim, "    expected_ci: REPRODUCED\n", "")),
             Contains(path + ", claim c1: missing key 'expected_ci'"));
  CHECK_THAT(error_of(kOneClaim + kOneClaim.substr(kOneClaim.find("  - id"))), Contains(path + ", claim c1: the id is used twice"));
}

TEST_CASE("a max_gap rule: by, over, higher and lower read; a missing or foreign key or min above max refused",
          "[report]") {
  TempDir dir("embpriv_claims_gap_test");
  const std::string root = source_dir(), path = dir / "gap.yaml";
  const std::string good = replaced(
      kOneClaim, "rule: {kind: within, column: mean_norm_ratio, value: 1, tolerance: 1.0e-5, where: {mechanism_name: vmf_tangent}}",
      "rule: {kind: max_gap, column: psr, by: [dp.epsilon, alpha], over: method, min: 0.4, max: 0.6,\n"
      "           higher: {method: privateai}, lower: {method: [fedavg, fafl]}}");
  write_file(path, good);
  const Rule rule = *load_claims_file(path, root).claims.at(0).rule;
  CHECK(rule.kind == "max_gap");
  CHECK((rule.by_columns == std::vector<std::string>{"dp.epsilon", "alpha"}));
  CHECK(rule.by.empty());
  CHECK(rule.over == "method");
  CHECK(rule.min == 0.4);
  CHECK(rule.max == 0.6);
  CHECK((rule.lower.at("method").values == std::vector<std::string>{"fedavg", "fafl"}));
  const auto error_of = [&](const std::string& text) { return load_error(path, root, text); };
  const std::string rule_at = path + ", claim c1, rule: ";
  CHECK_THAT(error_of(replaced(good, "over: method", "ovr: method")), Contains(rule_at + "unknown key 'ovr'"));
  CHECK_THAT(error_of(replaced(good, "by: [dp.epsilon, alpha], ", "")),
             Contains(rule_at + "rule max_gap needs by (the setting columns, a list)"));
  CHECK_THAT(error_of(replaced(good, "by: [dp.epsilon, alpha]", "by: {dp.epsilon: 1}")),
             Contains(rule_at + "'by' must be a list of columns"));
  CHECK_THAT(error_of(replaced(good, "over: method, ", "")),
             Contains(rule_at + "rule max_gap needs over (the column naming the competitor)"));
  CHECK_THAT(error_of(replaced(good, "higher: {method: privateai}, ", "")),
             Contains(rule_at + "rule max_gap needs higher and lower (row selections)"));
  CHECK_THAT(error_of(replaced(good, ", lower: {method: [fedavg, fafl]}", "")),
             Contains(rule_at + "rule max_gap needs higher and lower (row selections)"));
  CHECK_THAT(error_of(replaced(good, "min: 0.4", "min: 0.7")), Contains(rule_at + "'min' 0.7 is above 'max' 0.6"));
  CHECK_THAT(error_of(replaced(good, "min: 0.4", "value: 0.5, tolerance: 0.1")),
             Contains(rule_at + "'value/tolerance/reference_column' does not apply to rule kind max_gap"));
  const std::string ordering = replaced(replaced(good, "kind: max_gap", "kind: ordering"), "min: 0.4, max: 0.6,", "");
  CHECK_THAT(error_of(ordering), Contains(rule_at + "'by' must be text"));
  CHECK_THAT(error_of(replaced(ordering, "by: [dp.epsilon, alpha], ", "")),
             Contains(rule_at + "'over' does not apply to rule kind ordering"));
  // One setting column may be written alone.
  write_file(path, replaced(good, "by: [dp.epsilon, alpha]", "by: dp.epsilon"));
  CHECK((load_claims_file(path, root).claims.at(0).rule->by_columns == std::vector<std::string>{"dp.epsilon"}));
}

TEST_CASE("a matched rule and within's aggregate best: their keys read; a missing or foreign key refused", "[report]") {
  TempDir dir("embpriv_claims_matched_test");
  const std::string root = source_dir(), path = dir / "matched.yaml";
  const std::string old_rule =
      "rule: {kind: within, column: mean_norm_ratio, value: 1, tolerance: 1.0e-5, where: {mechanism_name: vmf_tangent}}";
  const std::string good = replaced(
      kOneClaim, old_rule,
      "rule: {kind: matched, column: stream_top1_recovery, utility_column: sentiment_accuracy_obfuscated,\n"
      "           better: lower, by: [obfuscation.k, obfuscation.epsilon], over: obfuscation.method, margin: 0.05,\n"
      "           higher: {obfuscation.method: obfuslm}, lower: {obfuscation.method: [gaussian, vmf]}}");
  write_file(path, good);
  const Rule rule = *load_claims_file(path, root).claims.at(0).rule;
  CHECK(rule.kind == "matched");
  CHECK(rule.utility_column == "sentiment_accuracy_obfuscated");
  CHECK(rule.better == "lower");
  CHECK((rule.by_columns == std::vector<std::string>{"obfuscation.k", "obfuscation.epsilon"}));
  CHECK(rule.over == "obfuscation.method");
  CHECK(rule.margin == 0.05);
  CHECK(rule.aggregate == "each");
  const auto error_of = [&](const std::string& text) { return load_error(path, root, text); };
  const std::string rule_at = path + ", claim c1, rule: ";
  CHECK_THAT(error_of(replaced(good, "utility_column: sentiment_accuracy_obfuscated,", "")),
             Contains(rule_at + "rule matched needs utility_column (what is matched)"));
  CHECK_THAT(error_of(replaced(good, "better: lower, ", "")),
             Contains(rule_at + "rule matched needs better: lower or higher, got ''"));
  CHECK_THAT(error_of(replaced(good, "better: lower", "better: less")),
             Contains(rule_at + "rule matched needs better: lower or higher, got 'less'"));
  CHECK_THAT(error_of(replaced(good, "by: [obfuscation.k, obfuscation.epsilon], ", "")),
             Contains(rule_at + "rule matched needs by (the setting columns, a list)"));
  CHECK_THAT(error_of(replaced(good, "over: obfuscation.method, ", "")),
             Contains(rule_at + "rule matched needs over (the column naming the competitor)"));
  CHECK_THAT(error_of(replaced(good, "higher: {obfuscation.method: obfuslm}, ", "")),
             Contains(rule_at + "rule matched needs higher and lower (row selections)"));
  CHECK_THAT(error_of(replaced(good, "margin: 0.05", "margin: 0.05, aggregate: mean")),
             Contains(rule_at + "rule matched: aggregate must be each or any, got 'mean'"));
  CHECK_THAT(error_of(replaced(good, "margin: 0.05", "margin: 0.05, min: 0.1")),
             Contains(rule_at + "'min/max' does not apply to rule kind matched"));
  CHECK_THAT(error_of(replaced(good, "kind: matched", "kind: max_gap")),
             Contains(rule_at + "'utility_column/better' does not apply to rule kind max_gap"));

  // within, aggregate best: by is the setting columns; without best, by is refused.
  const std::string best = replaced(
      kOneClaim, old_rule, "rule: {kind: within, column: psr, min: 0.85, max: 0.95, aggregate: best, by: [dp.epsilon, alpha]}");
  write_file(path, best);
  const Rule best_rule = *load_claims_file(path, root).claims.at(0).rule;
  CHECK(best_rule.aggregate == "best");
  CHECK((best_rule.by_columns == std::vector<std::string>{"dp.epsilon", "alpha"}));
  CHECK_THAT(error_of(replaced(best, ", by: [dp.epsilon, alpha]", "")),
             Contains(rule_at + "aggregate best needs by (the setting columns, a list)"));
  CHECK_THAT(error_of(replaced(best, "aggregate: best", "aggregate: each")),
             Contains(rule_at + "'by' applies to rule within only with aggregate best"));
  CHECK_THAT(error_of(replaced(best, "aggregate: best", "aggregate: top")),
             Contains(rule_at + "aggregate must be each, mean, any or best, got 'top'"));
}

TEST_CASE("embpriv report: a bad claims file or a column the results lack exits 2 naming it, writes nothing",
          "[report]") {
  TempDir dir("embpriv_report_cli_test");
  const std::filesystem::path claims = dir.path / "claims";
  std::filesystem::create_directories(claims);
  const std::string out = dir / "report.md";
  const std::string args = "report --root " + std::string(source_dir()) + " --claims " + claims.string() +
                           " --results " + dir.path.string() + " --out " + out;
  write_file((claims / "x.yaml").string(), replaced(kOneClaim, "kind: within", "kind: between"));
  Outcome outcome = run_binary(args, Capture::errors);
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("x.yaml, claim c1, rule: unknown rule kind 'between'"));
  CHECK_FALSE(std::filesystem::exists(out));

  // A results file that lacks the column: the claim, the column and the file are named.
  write_file((claims / "x.yaml").string(), replaced(kOneClaim, "mean_norm_ratio", "mean_norm_ration"));
  const std::string results = dir / "perturbation_small.h5";
  REQUIRE(run_binary("run " + std::string(source_dir()) + "/configs/ci/perturbation_small.yaml seeds=1 data.samples=20 --out " +
                     results + " --no-plot -q").code == 0);
  outcome = run_binary(args, Capture::errors);
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("x.yaml, claim c1: column 'mean_norm_ration' is not in " + results));
  CHECK_FALSE(std::filesystem::exists(out));

  // The right column: the report is written and --check compares with expected_ci.
  write_file((claims / "x.yaml").string(), kOneClaim);
  outcome = run_binary(args + " --check");
  CHECK(outcome.code == 0);
  CHECK_THAT(read_file(out), Contains("<a id=\"c1\"></a>"));
  write_file((claims / "x.yaml").string(), replaced(kOneClaim, "expected_ci: REPRODUCED", "expected_ci: REFUTED"));
  outcome = run_binary(args + " --check", Capture::errors);
  CHECK(outcome.code == 1);
  CHECK_THAT(outcome.output, Contains("claim c1: verdict REPRODUCED at CI size, the claims file expects REFUTED"));
}
