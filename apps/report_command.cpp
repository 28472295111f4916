#include "apps/report_command.h"

#include "core/atomic_file.h"
#include "core/error.h"
#include "experiments/engine/provenance.h"
#include "experiments/engine/run_plan.h"
#include "experiments/report/report_html.h"
#include "experiments/report/reproduction_report.h"
#include "experiments/types/registry.h"

namespace embpriv {

ReportCommand::ReportCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "report", "Decide the papers' claims (configs/claims/*.yaml) on the results files and write "
                "docs/reproduction.md: REPRODUCED, REFUTED, DIFFERENT SETTING, INCONCLUSIVE or NOT RUN per claim");
  command_->add_option("--scale", scale_, "ci: each claim's ci_config, paper: its config")
      ->check(CLI::IsMember({"ci", "paper"}))
      ->capture_default_str();
  command_->add_option("--claims", claims_, "Folder of claims files")->capture_default_str();
  command_->add_option("--results", results_,
                       "Folder of results files, NAME.h5 per config (default: build/test-results at --scale ci, "
                       "results at --scale paper)");
  command_->add_option("--out", out_,
                       "The report (markdown), written atomically (default: docs/reproduction.md at --scale ci, "
                       "docs/reproduction_paper.md at --scale paper)");
  command_->add_option("--html", html_,
                       "Also write the report as one self-contained HTML page, with the figures written beside "
                       "each results file (default: none)");
  command_->add_option("--root", root_, "Repository root: configs are named relative to it")->capture_default_str();
  command_->add_flag("--check", check_,
                     "At --scale ci: exit 1 when a verdict differs from its claim's expected_ci");
}

int ReportCommand::run(const MechanismRegistry& mechanisms, std::ostream& out, std::ostream& errors) const {
  ReportOptions options;
  options.scale = scale_ == "paper" ? ReportScale::paper : ReportScale::ci;
  options.claims_folder = claims_;
  options.results_folder = results_;
  options.root = root_;
  options.config_hash = [&mechanisms](const std::string& config) {
    return plan_run(config, {}, default_experiment_registry(), mechanisms).config_hash;
  };
  EMBPRIV_CHECK(!check_ || options.scale == ReportScale::ci, "--check compares the CI verdicts: use it with --scale ci");
  const std::string out_path =
      !out_.empty() ? out_ : options.scale == ReportScale::ci ? "docs/reproduction.md" : "docs/reproduction_paper.md";
  const Report report = build_report(options);
  const std::string commit = git_commit();
  write_file_atomically(out_path, render_markdown(report, commit));
  if (!html_.empty()) write_file_atomically(html_, render_html(report, commit));
  out << "report: " << report.rows.size() << " claims from " << report.files.size() << " files, results in "
      << report.options.results_folder << ", into " << out_path << (html_.empty() ? "" : " and " + html_) << "\n";
  for (const auto& [paper, counts] : verdict_counts(report)) {
    out << "  " << paper << ":";
    for (const auto& [verdict, count] : counts) {
      if (count > 0) out << " " << verdict << " " << count << ";";
    }
    out << "\n";
  }
  if (!check_) return 0;
  const std::vector<std::string> mismatches = verdict_mismatches(report);
  for (const std::string& line : mismatches) errors << "embpriv: verdict changed: " << line << "\n";
  if (!mismatches.empty()) return 1;
  out << "check: every CI verdict is the one its claims file expects\n";
  return 0;
}

}  // namespace embpriv
