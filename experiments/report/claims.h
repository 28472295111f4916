#pragma once
// The papers' headline claims, machine-readable (configs/claims/*.yaml, docs/reproduction.md):
// each claim names where the paper states it, the number or ordering it quotes, the config
// that measures it, the results columns and the rule that decides it, and why the setting
// differs where it does. `embpriv report` reads them and the results files and writes the
// verdicts (experiments/report/reproduction_report.h).
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace embpriv {

// Which rows of a results table a rule reads: column -> the values it keeps (any of a list of
// numbers or texts), or a closed range [min, max] of a numeric column.
struct ColumnMatch {
  std::vector<std::string> values;  // as written in YAML; numbers compared as numbers
  std::optional<double> min, max;   // a range (either end may be open)
};
using Selection = std::map<std::string, ColumnMatch>;

// The rule kinds (kRuleKinds lists them):
//   within    every selected row (aggregate: each), their mean (aggregate: mean) or some row
//             (aggregate: any: "a setting exists where ...") of `column` lies in [min, max], or
//             within `tolerance` of `value` or of `reference_column`; aggregate: best: the mean
//             of `column` per setting (a tuple of the `by` columns' values, a list; the seeds of
//             a setting averaged), and the LARGEST of these means lies in the range (a paper's
//             headline at its best setting);
//   ordering  mean of `column` over `higher` exceeds the mean over `lower` by more than `margin`;
//   ratio     mean over `higher` / mean over `lower` lies in [min, max];
//   monotone  the means of `column` per value of `by` rise (or fall) with it, in each group of
//             `group_by`, no step against the trend larger than `slack`;
//   bound     no selected row of `column` is above `at_most` (a number, or `at_most_column` of
//             the same row) or below `at_least`, by more than `slack`: a bound never exceeded;
//   max_gap   in each setting (a tuple of the `by` columns' values that both sides hold), the mean
//             of `column` over `higher` minus the best mean of a competitor of `lower` (a value
//             of the `over` column); the largest of these gaps lies in [min, max] ("improves by
//             up to N points over the best existing method");
//   matched   at matched utility: each setting of `higher` (a tuple of the `by` columns, seeds
//             averaged) reaches utility u (mean `utility_column`) and value v (mean `column`); each
//             competitor (a value of the `over` column among `lower`) has points (utility, value),
//             one per its settings (seeds averaged; equal utilities averaged), sorted by utility,
//             and its value at u is the linear interpolation between the two points enclosing u.
//             A setting wins when v beats every competitor's value there by more than `margin`
//             (`better: lower`, e.g. a recovery rate, or `better: higher`); a competitor whose
//             utility range does not cover u is never extrapolated and the setting does not win.
//             Holds when every setting of higher wins (aggregate: each, the default) or some
//             setting does (aggregate: any).
struct Rule {
  std::string kind;
  std::string column;
  Selection where;  // the rows every kind reads (all rows with status ok when empty)
  // within
  std::optional<double> value, tolerance, min, max;
  std::string reference_column;
  std::string aggregate = "each";  // each | mean | any | best (within); each | any (matched)
  // ordering, ratio
  Selection higher, lower;
  double margin = 0;
  // monotone
  std::string by;  // max_gap, matched, within: by_columns instead (`by` is a list there)
  std::string direction;  // increasing | decreasing
  std::vector<std::string> group_by;
  double slack = 0;
  // bound
  std::optional<double> at_most, at_least;
  std::string at_most_column;
  // max_gap (also higher, lower, min, max), matched, within with aggregate best
  std::vector<std::string> by_columns;  // the setting columns
  std::string over;                     // the column naming the competitor
  // matched (also higher, lower, by_columns, over, margin, aggregate)
  std::string utility_column;  // the utility the sides are matched at
  std::string better;          // lower | higher: which values of `column` win
};

extern const std::vector<std::string> kRuleKinds;
extern const std::vector<std::string> kVerdicts;  // REPRODUCED, REFUTED, ...

struct Claim {
  std::string id;           // unique over all claims files; the report's row anchor
  std::string where;        // figure / table / section as the paper file numbers it
  std::string statement;    // `claim:` what the paper says
  std::string paper_value;  // the quoted number or ordering
  std::string config;       // the config that measures it at the paper's scale (repo-relative)
  std::string ci_config;    // the small config CI runs ("" when none)
  std::optional<Rule> rule;
  std::optional<Rule> ci_rule;  // the rule at CI size where it differs
  std::optional<Rule> control;  // must hold for the test to be able to show an effect
  std::optional<Rule> ci_control;  // the control at CI size where it differs
  std::string setting;      // why the paper config's setting differs from the paper's ("": same)
  std::string ci_setting;   // why the CI config's setting differs from the paper config's
  std::string not_measured; // why no config measures it (then config and rule are absent)
  std::string expected_ci;  // the verdict the CI configs give (checked by `embpriv report --check`)
  std::string docs;         // the topic doc that discusses it
  std::string source;       // "FILE, claim ID": where error messages point
};

struct ClaimsFile {
  std::string path;
  std::string paper;       // vmf | obfuslm | privateai (a short name)
  std::string title;
  std::string paper_file;  // the paper's text, e.g. ../shared/papers/000_...txt
  std::vector<Claim> claims;
};

// Reads and checks one claims file: unknown keys, a missing key, an unknown rule kind or
// verdict, a config that does not exist under `root` give one embpriv::Error naming the file
// and the claim.
ClaimsFile load_claims_file(const std::string& path, const std::string& root);
// Every *.yaml of `folder`, by name; claim ids must be unique across them.
std::vector<ClaimsFile> load_claims_folder(const std::string& folder, const std::string& root);

}  // namespace embpriv
