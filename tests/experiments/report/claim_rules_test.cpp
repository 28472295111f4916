// The rule kinds of the claims files (experiments/report/claims.h): each holds on data that agrees
// with its claim and refutes on data that contradicts it; the verdicts around them (control,
// setting, no results) and the errors of a claim that names what a results file lacks.
#include "tests/catch.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "experiments/report/claim_rules.h"
#include "experiments/report/reproduction_report.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// A perturbation-like table: two mechanisms x three eps x two seeds.
ResultsTable table_of(const std::vector<double>& cosine_b) {
  ResultsTable t;
  std::vector<std::string> names, status;
  std::vector<double> eps, cosine, theory;
  std::vector<std::int64_t> seed;
  const double grid[3] = {1, 2, 5};
  for (int m = 0; m < 2; ++m) {
    for (int e = 0; e < 3; ++e) {
      for (int s = 0; s < 2; ++s) {
        names.push_back(m == 0 ? "a" : "b");
        status.push_back("ok");
        eps.push_back(grid[e]);
        seed.push_back(s + 1);
        const double th = 1 / std::sqrt(1 + 1 / (grid[e] * grid[e]));
        theory.push_back(th);
        cosine.push_back(m == 0 ? th + (s == 0 ? 1e-4 : -1e-4) : cosine_b[static_cast<std::size_t>(e)]);
      }
    }
  }
  t.columns = {{"seed", seed}, {"status", status}, {"mechanism_name", names}, {"epsilon", eps},
               {"mean_cosine", cosine}, {"theory_cosine", theory}};
  t.attributes["git_commit"] = "0123456789abcdef0123456789abcdef01234567-dirty";
  return t;
}

const ResultsTable kAgrees = table_of({0.1, 0.2, 0.3});

Rule rule_of(const std::string& kind, const std::string& column) {
  Rule r;
  r.kind = kind;
  r.column = column;
  return r;
}

ColumnMatch one(const std::string& value) { return ColumnMatch{{value}, std::nullopt, std::nullopt}; }

Claim claim_with(const Rule& rule) {
  Claim c;
  c.id = "test-claim";
  c.source = "claims.yaml, claim test-claim";
  c.config = "configs/paper/x.yaml";
  c.ci_config = "configs/ci/x.yaml";
  c.rule = rule;
  return c;
}

std::string verdict(const Claim& claim, const ResultsTable& table) {
  return judge_claim(claim, ReportScale::paper, &table, "x.h5").verdict;
}

}  // namespace

TEST_CASE("rule within: every row near a value, near its reference column, the mean, some row", "[report]") {
  Rule r = rule_of("within", "mean_cosine");
  r.where = {{"mechanism_name", one("a")}, {"epsilon", one("1")}};
  r.value = 0.70711;
  r.tolerance = 5e-4;
  CHECK(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
  CHECK_THAT(evaluate_rule(r, kAgrees, "w", "x.h5").ours, Contains("2 rows, 2 seeds"));
  r.value = 0.6;  // the paper's number contradicted
  CHECK_FALSE(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
  CHECK(verdict(claim_with(r), kAgrees) == "REFUTED");

  Rule ref = rule_of("within", "mean_cosine");
  ref.reference_column = "theory_cosine";
  ref.tolerance = 2e-4;
  ref.where = {{"mechanism_name", one("a")}};
  CHECK(evaluate_rule(ref, kAgrees, "w", "x.h5").holds);
  ref.where = {{"mechanism_name", one("b")}};  // b is far from the theory
  CHECK_FALSE(evaluate_rule(ref, kAgrees, "w", "x.h5").holds);

  Rule range = rule_of("within", "mean_cosine");
  range.where = {{"mechanism_name", one("b")}};
  range.min = 0.15;
  range.max = 0.25;
  CHECK_FALSE(evaluate_rule(range, kAgrees, "w", "x.h5").holds);  // each: 0.1 and 0.3 are out
  range.aggregate = "mean";
  CHECK(evaluate_rule(range, kAgrees, "w", "x.h5").holds);  // mean 0.2
  range.aggregate = "any";
  range.min = 0.29;
  range.max = 0.31;
  CHECK(evaluate_rule(range, kAgrees, "w", "x.h5").holds);
  range.min = 0.5;
  range.max = 0.6;
  CHECK_FALSE(evaluate_rule(range, kAgrees, "w", "x.h5").holds);
}

TEST_CASE("rule ordering and ratio: group means compared, and refuted when the order is reversed", "[report]") {
  Rule r = rule_of("ordering", "mean_cosine");
  r.higher = {{"mechanism_name", one("a")}};
  r.lower = {{"mechanism_name", one("b")}};
  r.margin = 0.3;
  CHECK(evaluate_rule(r, kAgrees, "w", "x.h5").holds);  // about 0.85 against 0.2
  std::swap(r.higher, r.lower);
  CHECK_FALSE(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
  CHECK(verdict(claim_with(r), kAgrees) == "REFUTED");

  Rule ratio = rule_of("ratio", "mean_cosine");
  ratio.higher = {{"mechanism_name", one("b")}, {"epsilon", one("5")}};
  ratio.lower = {{"mechanism_name", one("b")}, {"epsilon", one("1")}};
  ratio.min = 2.9;
  ratio.max = 3.1;
  CHECK(evaluate_rule(ratio, kAgrees, "w", "x.h5").holds);  // 0.3 / 0.1
  ratio.min = 6.5;  // "nearly 7x" against 3x
  ratio.max = 7.5;
  CHECK_FALSE(evaluate_rule(ratio, kAgrees, "w", "x.h5").holds);
}

TEST_CASE("rule monotone: a trend in each group, refuted by one step against it beyond the slack", "[report]") {
  Rule r = rule_of("monotone", "mean_cosine");
  r.by = "epsilon";
  r.direction = "increasing";
  r.group_by = {"mechanism_name"};
  CHECK(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
  const ResultsTable dip = table_of({0.1, 0.05, 0.3});
  CHECK_FALSE(evaluate_rule(r, dip, "w", "x.h5").holds);
  r.slack = 0.06;  // a dip of 0.05 is within the slack
  CHECK(evaluate_rule(r, dip, "w", "x.h5").holds);
  r.slack = 0;
  r.direction = "decreasing";
  CHECK_FALSE(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
}

TEST_CASE("rule bound: never above a number or a column of the same row; one row above refutes", "[report]") {
  Rule r = rule_of("bound", "mean_cosine");
  r.at_most = 0.99;
  CHECK(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
  r.at_most = 0.9;  // a's cosine at eps 5 is 0.98
  CHECK_FALSE(evaluate_rule(r, kAgrees, "w", "x.h5").holds);
  CHECK(verdict(claim_with(r), kAgrees) == "REFUTED");
  Rule column = rule_of("bound", "mean_cosine");
  column.at_most_column = "theory_cosine";
  column.where = {{"mechanism_name", one("b")}};
  CHECK(evaluate_rule(column, kAgrees, "w", "x.h5").holds);
  column.where = {{"mechanism_name", one("a")}};  // one seed sits 1e-4 above the theory
  CHECK_FALSE(evaluate_rule(column, kAgrees, "w", "x.h5").holds);
  column.slack = 2e-4;
  CHECK(evaluate_rule(column, kAgrees, "w", "x.h5").holds);
  Rule least = rule_of("bound", "mean_cosine");
  least.at_least = 0.2;
  least.where = {{"mechanism_name", one("b")}};
  CHECK_FALSE(evaluate_rule(least, kAgrees, "w", "x.h5").holds);
}

namespace {

// A PSR-like table: ours against three baselines at eps 1, 10, 100, two seeds each. The best
// baseline differs per eps (b, a, c): the gaps to it are 0.21, 0.19 and 0.30 (to the mean of the
// baselines they would be 0.31, 0.40, 0.37; to the first seed's best 0.20, 0.20, 0.32).
// `one_sided`: ours alone at eps 1000 (psr 1) and the baselines alone at eps 0.1.
ResultsTable gap_table(bool one_sided = false) {
  ResultsTable t;
  std::vector<std::string> method, status;
  std::vector<double> eps, psr;
  std::vector<std::int64_t> seed;
  const auto add = [&](const std::string& m, double e, double s1, double s2) {
    for (int s = 0; s < 2; ++s) {
      method.push_back(m);
      status.push_back("ok");
      eps.push_back(e);
      seed.push_back(s + 1);
      psr.push_back(s == 0 ? s1 : s2);
    }
  };
  add("ours", 1, 0.80, 0.84);
  add("a", 1, 0.50, 0.52);
  add("b", 1, 0.60, 0.62);
  add("c", 1, 0.40, 0.40);
  add("ours", 10, 0.90, 0.92);
  add("a", 10, 0.70, 0.74);
  add("b", 10, 0.30, 0.30);
  add("c", 10, 0.50, 0.50);
  add("ours", 100, 0.94, 0.98);
  add("a", 100, 0.60, 0.60);
  add("b", 100, 0.50, 0.50);
  add("c", 100, 0.62, 0.70);
  if (one_sided) {
    add("ours", 1000, 1.0, 1.0);
    add("a", 0.1, 0.1, 0.1);
    add("b", 0.1, 0.1, 0.1);
  }
  // A failed run of a, far above the rest: not read.
  method.push_back("a");
  status.push_back("failed");
  eps.push_back(100);
  seed.push_back(3);
  psr.push_back(0.99);
  t.columns = {{"seed", seed}, {"status", status}, {"method", method}, {"epsilon", eps}, {"psr", psr}};
  return t;
}

Rule gap_rule() {
  Rule r = rule_of("max_gap", "psr");
  r.by_columns = {"epsilon"};
  r.over = "method";
  r.higher = {{"method", one("ours")}};
  r.lower = {{"method", ColumnMatch{{"a", "b", "c"}, std::nullopt, std::nullopt}}};
  return r;
}

}  // namespace

TEST_CASE("rule max_gap: the largest gap over settings to the best competitor of each, seeds averaged",
          "[report]") {
  const ResultsTable table = gap_table();
  Rule r = gap_rule();
  const RuleOutcome outcome = evaluate_rule(r, table, "w", "x.h5");
  CHECK(outcome.holds);  // no bounds
  CHECK_THAT(outcome.ours, Contains("largest gap 0.3 at epsilon 100: method ours 0.96"));
  CHECK_THAT(outcome.ours, Contains("(2 rows, 2 seeds) against the best method there, c 0.66"));
  CHECK_THAT(outcome.ours, Contains("; 3 settings"));
  CHECK_THAT(outcome.ours, !Contains("skipped"));
  CHECK_THAT(outcome.detail, Contains("largest gap in [-inf, inf]: yes"));

  // The paper's number +- 0.01 holds; a bound on either side of 0.3 refutes.
  r.min = 0.29;
  r.max = 0.31;
  CHECK(evaluate_rule(r, table, "w", "x.h5").holds);
  CHECK(evaluate_rule(r, table, "w", "x.h5").detail == "largest gap in [0.29, 0.31]: yes");
  CHECK(verdict(claim_with(r), table) == "REPRODUCED");
  r.min = 0.31;
  r.max.reset();
  CHECK_FALSE(evaluate_rule(r, table, "w", "x.h5").holds);
  CHECK(evaluate_rule(r, table, "w", "x.h5").detail == "largest gap in [0.31, inf]: no");
  CHECK(verdict(claim_with(r), table) == "REFUTED");
  r.min.reset();
  r.max = 0.29;
  CHECK_FALSE(evaluate_rule(r, table, "w", "x.h5").holds);

  // Without c, eps 100's best is a (gap 0.36): the best competitor is per setting.
  Rule without_c = gap_rule();
  without_c.lower = {{"method", ColumnMatch{{"a", "b"}, std::nullopt, std::nullopt}}};
  CHECK_THAT(evaluate_rule(without_c, table, "w", "x.h5").ours, Contains("largest gap 0.36 at epsilon 100"));
  CHECK_THAT(evaluate_rule(without_c, table, "w", "x.h5").ours, Contains("the best method there, a 0.6"));
}

TEST_CASE("rule max_gap: a setting on one side only is skipped; no common setting is an error", "[report]") {
  Rule r = gap_rule();
  r.min = 0.29;
  r.max = 0.31;
  const RuleOutcome outcome = evaluate_rule(r, gap_table(true), "w", "x.h5");
  CHECK(outcome.holds);  // ours' eps 1000 (1.0 against nothing) is not a gap
  CHECK_THAT(outcome.ours, Contains("largest gap 0.3 at epsilon 100"));
  CHECK_THAT(outcome.ours, Contains("; 3 settings, 2 on one side only skipped"));

  r.higher = {{"method", one("ours")}, {"epsilon", one("1")}};
  r.lower = {{"method", one("a")}, {"epsilon", one("10")}};
  CHECK_THROWS_WITH(evaluate_rule(r, gap_table(), "claims.yaml, claim c1", "results/x.h5"),
                    Contains("claims.yaml, claim c1: higher and lower share no setting (epsilon) in rows with "
                             "status ok of results/x.h5"));
  r.lower = {{"method", one("d")}};
  CHECK_THROWS_WITH(evaluate_rule(r, gap_table(), "claims.yaml, claim c1", "results/x.h5"),
                    Contains("claims.yaml, claim c1: lower selects no row with status ok of results/x.h5"));
  r = gap_rule();
  r.over = "methd";
  CHECK_THROWS_WITH(evaluate_rule(r, gap_table(), "claims.yaml, claim c1", "results/x.h5"),
                    Contains("claims.yaml, claim c1: column 'methd' is not in results/x.h5"));
}

TEST_CASE("verdicts: a failed control is INCONCLUSIVE, a named setting DIFFERENT SETTING, no file NOT RUN",
          "[report]") {
  Rule fails = rule_of("bound", "mean_cosine");
  fails.at_most = 0.5;
  Rule holds = rule_of("bound", "mean_cosine");
  holds.at_most = 1;
  Claim claim = claim_with(holds);
  CHECK(verdict(claim, kAgrees) == "REPRODUCED");
  claim.control = fails;  // the test could not have shown the effect
  CHECK(verdict(claim, kAgrees) == "INCONCLUSIVE");
  claim.control.reset();
  claim.rule = fails;
  claim.setting = "a smaller model";
  const ClaimVerdict different = judge_claim(claim, ReportScale::paper, &kAgrees, "x.h5");
  CHECK(different.verdict == "DIFFERENT SETTING");
  CHECK_THAT(different.why, Contains("a smaller model"));
  CHECK(different.commit == "0123456789ab-dirty");
  claim.setting.clear();
  claim.ci_setting = "two rounds";  // counts at CI size only
  CHECK(verdict(claim, kAgrees) == "REFUTED");
  CHECK(judge_claim(claim, ReportScale::ci, &kAgrees, "x.h5").verdict == "DIFFERENT SETTING");
  CHECK(judge_claim(claim, ReportScale::paper, nullptr, "x.h5").verdict == "NOT RUN");
  claim.ci_config.clear();
  CHECK(judge_claim(claim, ReportScale::ci, &kAgrees, "x.h5").verdict == "NOT RUN");
}

TEST_CASE("a rule naming a column or rows the results lack is one error naming the claim and the file",
          "[report]") {
  Rule r = rule_of("within", "mean_cosin");
  r.value = 1;
  r.tolerance = 0.1;
  CHECK_THROWS_WITH(evaluate_rule(r, kAgrees, "claims.yaml, claim c1", "results/x.h5"),
                    Contains("claims.yaml, claim c1: column 'mean_cosin' is not in results/x.h5"));
  r.column = "mean_cosine";
  r.where = {{"mechanism_name", one("vmf")}};
  CHECK_THROWS_WITH(evaluate_rule(r, kAgrees, "claims.yaml, claim c1", "results/x.h5"),
                    Contains("claims.yaml, claim c1: where selects no row with status ok of results/x.h5"));
  // A range that keeps no row is a result (the rule fails), not a claims-file error.
  r.where = {{"epsilon", ColumnMatch{{}, 100.0, std::nullopt}}};
  CHECK_FALSE(evaluate_rule(r, kAgrees, "c", "x.h5").holds);
}

namespace {

// ObfusLM-like rows: ours at eps 1 and 3, two competitors at their own eps, two seeds each;
// `acc` is the utility matched on, `top1` the attack's success (lower is better).
ResultsTable matched_table() {
  ResultsTable t;
  std::vector<std::string> method, status;
  std::vector<double> eps, acc, top1;
  std::vector<std::int64_t> seed;
  // Each setting's two seeds: utilities u - d and u + d, values v - d and v + d (means u, v).
  const auto add = [&](const std::string& m, double e, double u, double v, double d) {
    for (int s = 0; s < 2; ++s) {
      method.push_back(m);
      status.push_back("ok");
      eps.push_back(e);
      seed.push_back(s + 1);
      acc.push_back(s == 0 ? u - d : u + d);
      top1.push_back(s == 0 ? v - d : v + d);
    }
  };
  add("ours", 1, 0.71, 0.11, 0.01);
  add("ours", 3, 0.74, 0.50, 0.01);
  // gaussian's points (0.60, 0.2), (0.70, 0.4), (0.80, 0.9): 0.45 at 0.71, 0.6 at 0.74. Its eps
  // are not in the order of its utilities: in eps order 0.71 would fall between (0.60, 0.2) and
  // (0.80, 0.9), giving 0.585.
  add("gaussian", 10, 0.70, 0.40, 0.02);
  add("gaussian", 30, 0.60, 0.20, 0.02);
  add("gaussian", 100, 0.80, 0.90, 0.02);
  // laplace's points (0.65, 0.3), (0.72, 0.5): 0.3 + 0.2 * 6/7 = 0.471 at 0.71; 0.74 is beyond
  // them (a straight line through the last two would give 0.557, above ours' 0.5).
  add("laplace", 10, 0.65, 0.30, 0.01);
  add("laplace", 30, 0.72, 0.50, 0.01);
  t.columns = {{"seed", seed}, {"status", status}, {"method", method}, {"epsilon", eps}, {"acc", acc}, {"top1", top1}};
  return t;
}

Rule matched_rule() {
  Rule r = rule_of("matched", "top1");
  r.by_columns = {"epsilon"};
  r.over = "method";
  r.utility_column = "acc";
  r.better = "lower";
  r.higher = {{"method", one("ours")}};
  r.lower = {{"method", ColumnMatch{{"gaussian", "laplace"}, std::nullopt, std::nullopt}}};
  return r;
}

}  // namespace

TEST_CASE("rule matched: each competitor interpolated at the utility ours reaches, seeds averaged", "[report]") {
  const ResultsTable table = matched_table();
  Rule r = matched_rule();
  r.higher["epsilon"] = one("1");
  RuleOutcome outcome = evaluate_rule(r, table, "w", "x.h5");
  CHECK(outcome.holds);
  // Ours at eps 1: 0.11 at utility 0.71 (the mean of 0.70 and 0.72); gaussian between its points
  // at 0.70 and 0.80 (sorted by utility, not by eps), laplace between 0.65 and 0.72.
  CHECK_THAT(outcome.ours, Contains("method ours: epsilon 1: 0.11 at acc 0.71 (2 seeds) against gaussian 0.45 laplace 0.471 (beats all)"));
  CHECK_THAT(outcome.detail, Contains("every setting of epsilon 1, method ours below every method at matched acc by more than 0"));
  CHECK_THAT(outcome.detail, Contains("(1 of 1 settings; interpolated, never extrapolated): yes"));
  // The margin: gaussian's 0.45 - 0.11 = 0.34 is the smallest gain.
  r.margin = 0.33;
  CHECK(evaluate_rule(r, table, "w", "x.h5").holds);
  CHECK(verdict(claim_with(r), table) == "REPRODUCED");
  r.margin = 0.35;
  CHECK_FALSE(evaluate_rule(r, table, "w", "x.h5").holds);
  CHECK(verdict(claim_with(r), table) == "REFUTED");
  // better: higher turns the comparison round.
  r.margin = 0;
  r.better = "higher";
  CHECK_FALSE(evaluate_rule(r, table, "w", "x.h5").holds);
  CHECK_THAT(evaluate_rule(r, table, "w", "x.h5").detail, Contains("above every method"));
}

TEST_CASE("rule matched: a utility outside a competitor's range is not covered, never extrapolated", "[report]") {
  const ResultsTable table = matched_table();
  Rule r = matched_rule();
  r.higher["epsilon"] = one("3");
  // Ours at eps 3: 0.5 at 0.74. gaussian there: 0.6 (beaten); laplace reaches 0.72 at most.
  RuleOutcome outcome = evaluate_rule(r, table, "w", "x.h5");
  CHECK_FALSE(outcome.holds);
  CHECK_THAT(outcome.ours,
             Contains("epsilon 3: 0.5 at acc 0.74 (2 seeds) against gaussian 0.6 laplace not covered (its acc spans "
                      "[0.65, 0.72]) (does not beat all)"));
  // Without laplace, gaussian covers 0.74 and is beaten.
  Rule gaussian_only = r;
  gaussian_only.lower = {{"method", one("gaussian")}};
  CHECK(evaluate_rule(gaussian_only, table, "w", "x.h5").holds);
  // Both settings: each needs both; any needs one.
  r.higher = {{"method", one("ours")}};
  outcome = evaluate_rule(r, table, "w", "x.h5");
  CHECK_FALSE(outcome.holds);
  CHECK_THAT(outcome.detail, Contains("(1 of 2 settings; interpolated, never extrapolated): no"));
  r.aggregate = "any";
  CHECK(evaluate_rule(r, table, "w", "x.h5").holds);
  CHECK_THAT(evaluate_rule(r, table, "w", "x.h5").detail, Contains("some setting of method ours"));
  // A column the table lacks is named.
  r.utility_column = "accuracy";
  CHECK_THROWS_WITH(evaluate_rule(r, table, "claims.yaml, claim c1", "results/x.h5"),
                    Contains("claims.yaml, claim c1: column 'accuracy' is not in results/x.h5"));
}

TEST_CASE("rule within, aggregate best: the largest mean over settings (seeds averaged) in the range", "[report]") {
  // Setting eps 1: rows 0.95 and 0.80 (mean 0.875); eps 2: 0.90 and 0.90 (mean 0.90); eps 5:
  // 0.5 and 0.6. The best setting is eps 2, though the largest single row is eps 1's 0.95.
  ResultsTable t;
  t.columns = {{"seed", std::vector<std::int64_t>{1, 2, 1, 2, 1, 2}},
               {"status", std::vector<std::string>(6, "ok")},
               {"epsilon", std::vector<double>{1, 1, 2, 2, 5, 5}},
               {"psr", std::vector<double>{0.95, 0.80, 0.90, 0.90, 0.5, 0.6}}};
  Rule r = rule_of("within", "psr");
  r.aggregate = "best";
  r.by_columns = {"epsilon"};
  r.min = 0.89;
  r.max = 0.91;
  RuleOutcome outcome = evaluate_rule(r, t, "w", "x.h5");
  CHECK(outcome.holds);
  CHECK_THAT(outcome.ours, Contains("best setting (epsilon 2): 0.9 ± 0 [0.9, 0.9] (2 rows, 2 seeds); 3 settings, 6 rows"));
  CHECK(outcome.detail == "largest setting mean in [0.89, 0.91]: yes");
  CHECK(verdict(claim_with(r), t) == "REPRODUCED");
  // The best single row (0.95) or the mean of all rows (0.775) would fall outside.
  r.min = 0.94;
  r.max = 0.96;
  CHECK_FALSE(evaluate_rule(r, t, "w", "x.h5").holds);
  r.min = 0.7;
  r.max = 0.8;
  CHECK_FALSE(evaluate_rule(r, t, "w", "x.h5").holds);
  CHECK(evaluate_rule(r, t, "w", "x.h5").detail == "largest setting mean in [0.7, 0.8]: no");
  // A value and tolerance is a range too.
  r.min.reset();
  r.max.reset();
  r.value = 0.9;
  r.tolerance = 0.005;
  CHECK(evaluate_rule(r, t, "w", "x.h5").holds);
}
