#pragma once
// `embpriv report`: every claim of configs/claims/*.yaml decided on the results files, into
// docs/reproduction.md (one table per paper: the paper's number, ours with its spread over the
// rows and seeds read, the verdict, the config and the commit of the results).
//
// Verdicts:
//   REPRODUCED         the rule held on our results (and the control, where there is one);
//   REFUTED            the rule failed, and the claim names no difference of setting that could
//                      explain it;
//   DIFFERENT SETTING  the rule failed where our setting differs from the paper's (`setting`, and
//                      at CI size `ci_setting`): the failure says nothing about the paper's setting;
//   INCONCLUSIVE       the control failed: the test could not have shown the effect either way;
//   NOT RUN            no results file for the config (or no config measures the claim).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "experiments/report/claims.h"
#include "experiments/results/results_table.h"

namespace embpriv {

enum class ReportScale { ci, paper };  // which config of each claim is read: ci_config or config

struct ReportOptions {
  std::string claims_folder = "configs/claims";
  std::string results_folder;  // default: build/test-results (ci) or results (paper)
  std::string root = ".";      // the repository root: configs and claims are relative to it
  ReportScale scale = ReportScale::ci;
  // At --scale paper: the config_hash `embpriv run` stores for a config (path relative to
  // root) as it plans it today. A results file whose hash differs was written by another config
  // of the same name (configs/obfuslm_stories260k.yaml and configs/paper/obfuslm_stories260k.yaml
  // both write results/obfuslm_stories260k.h5) or before a default changed: it is not read, and
  // the claim is NOT RUN, as `embpriv run --resume` refuses to continue it. Empty: not checked.
  // (At CI size the test fixtures write each file from its config just before the report.)
  std::function<std::string(const std::string& config_path)> config_hash;
};

struct ClaimVerdict {
  std::string paper;  // the claims file's short name
  Claim claim;
  std::string verdict;
  std::string config;        // the config read at this scale ("" when none)
  std::string results_path;  // the results file read ("" when none)
  std::string ours, detail;  // the rule's outcome (RuleOutcome)
  std::string why;           // the setting difference, the control's failure, or why not run
  std::string commit;        // the results file's git_commit (12 hex digits, "-dirty" kept)
};

struct Report {
  std::vector<ClaimsFile> files;
  std::vector<ClaimVerdict> rows;  // in claims-file order
  ReportOptions options;
};

// Decides one claim at one scale; `table` is null when the results file does not exist.
ClaimVerdict judge_claim(const Claim& claim, ReportScale scale, const ResultsTable* table,
                         const std::string& results_path);

// The results file of a config: FOLDER/<the config file's stem>.h5 (the name `embpriv run`
// gives it by default).
std::string results_path_for(const std::string& results_folder, const std::string& config);

Report build_report(const ReportOptions& options);
// The markdown of docs/reproduction.md; `report_commit` is the code that made it.
std::string render_markdown(const Report& report, const std::string& report_commit);
// The texts of one row's columns as both renderers show them (plain text: each renderer quotes it
// its own way): "—" where a column is empty.
struct ReportRowText {
  std::string ours;     // "OURS; DETAIL" or "—"
  std::string verdict;  // the verdict
  std::string why;      // the reason after the verdict ("" when none)
  std::string config;   // the config read, "" when none (the renderers write "—")
  std::string docs;     // the topic doc (repo-relative), "" when none
  std::string commit;   // the results file's commit or "—"
};
ReportRowText report_row_text(const ClaimVerdict& row);
// Verdict counts: paper -> verdict -> count (every verdict present, zeros included).
std::map<std::string, std::map<std::string, int>> verdict_counts(const Report& report);
// The claims whose CI verdict differs from their expected_ci, one line each ("" when none):
// a verdict may change only together with the claims file.
std::vector<std::string> verdict_mismatches(const Report& report);

}  // namespace embpriv
